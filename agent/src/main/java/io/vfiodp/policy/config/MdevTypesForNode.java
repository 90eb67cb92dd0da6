package io.vfiodp.policy.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * KubeVirt's rule for the mdev types a node should carry (virt-config's
 * {@code GetDesiredMDEVTypes}), so that we read the CR exactly as virt-handler does:
 * <ul>
 *   <li>every {@code nodeMediatedDeviceTypes} entry whose {@code nodeSelector} labels all match
 *       the node (an empty selector matches every node) contributes its types; the contributions
 *       are united, and if that union is non-empty it <em>replaces</em> the global list;</li>
 *   <li>otherwise the global {@code mediatedDeviceTypes} applies;</li>
 *   <li>in both places the deprecated {@code mediatedDevicesTypes} is read only when
 *       {@code mediatedDeviceTypes} is empty.</li>
 * </ul>
 */
public final class MdevTypesForNode {

    private MdevTypesForNode() {}

    public static DesiredMdevTypes resolve(MediatedDevicesConfig conf, Map<String, String> nodeLabels) {
        if (conf == null) return DesiredMdevTypes.NONE;
        boolean enabled = conf.enabled().orElse(true);
        List<MediatedDevicesConfig.NodeTypes> perNode = conf.nodeMediatedDeviceTypes();
        Set<String> union = new LinkedHashSet<>();
        List<Integer> matched = new ArrayList<>();
        for (int i = 0; i < perNode.size(); i++) {
            MediatedDevicesConfig.NodeTypes entry = perNode.get(i);
            if (entry == null || !selects(entry.nodeSelector(), nodeLabels)) continue;
            List<String> types = entry.mediatedDeviceTypes().isEmpty() ? entry.mediatedDevicesTypes() : entry.mediatedDeviceTypes();
            if (types.isEmpty()) continue;
            matched.add(i);
            union.addAll(types);
        }
        if (!union.isEmpty()) {
            return new DesiredMdevTypes(List.copyOf(union), enabled, "nodeMediatedDeviceTypes" + matched.toString().replace(" ", ""));
        }
        List<String> global = conf.mediatedDeviceTypes();
        if (!global.isEmpty()) return new DesiredMdevTypes(distinct(global), enabled, "mediatedDeviceTypes");
        List<String> deprecated = conf.mediatedDevicesTypes();
        if (!deprecated.isEmpty()) return new DesiredMdevTypes(distinct(deprecated), enabled, "mediatedDevicesTypes (deprecated)");
        return new DesiredMdevTypes(List.of(), enabled, "none");
    }

    private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        for (var e : selector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) return false;
        }
        return true;
    }

    private static List<String> distinct(List<String> list) {
        return List.copyOf(new LinkedHashSet<>(list));
    }
}
