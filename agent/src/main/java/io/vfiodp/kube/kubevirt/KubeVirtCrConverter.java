package io.vfiodp.kube.kubevirt;

import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.KubeVirtConfiguration;
import io.vfiodp.kube.kubevirt.model.MediatedDevicesConfiguration;
import io.vfiodp.kube.kubevirt.model.NodeMediatedDeviceTypes;
import io.vfiodp.kube.kubevirt.model.PermittedHostDevices;
import io.vfiodp.policy.config.DesiredMdevTypes;
import io.vfiodp.policy.config.MdevTypesForNode;
import io.vfiodp.policy.config.MediatedDevicesConfig;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a KubeVirt CR into the configuration the policy reads ({@link io.vfiodp.policy.config.PermittedHostDevices},
 * the same records the {@code --config} file gives). Entries are passed on as written
 * (in order, with their index kept by position): the policy validates them and explains what it
 * skips, so a wrong entry here never hides the valid ones.
 */
final class KubeVirtCrConverter {

    private KubeVirtCrConverter() {}

    static KubeVirtConfig.FromCr convert(KubeVirt kv, Map<String, String> nodeLabels) {
        CrRef ref = ActiveKubeVirt.ref(kv);
        KubeVirtConfiguration conf = kv.getSpec() == null ? null : kv.getSpec().getConfiguration();
        if (conf == null) return new KubeVirtConfig.FromCr(ref, Optional.empty(), DesiredMdevTypes.NONE);
        return new KubeVirtConfig.FromCr(ref,
                Optional.ofNullable(conf.getPermittedHostDevices()).map(KubeVirtCrConverter::permitted),
                MdevTypesForNode.resolve(mediated(conf.getMediatedDevicesConfiguration()), nodeLabels));
    }

    static io.vfiodp.policy.config.PermittedHostDevices permitted(PermittedHostDevices p) {
        // a null item (a bare "-" in YAML) stays in place as null: the policy names entries by index
        List<PciHostDevice> pci = new ArrayList<>();
        for (io.vfiodp.kube.kubevirt.model.PciHostDevice d : orEmpty(p.getPciHostDevices())) {
            pci.add(d == null ? null
                    : new PciHostDevice(d.getPciVendorSelector(), d.getResourceName(), Boolean.TRUE.equals(d.getExternalResourceProvider())));
        }
        List<MediatedHostDevice> mdev = new ArrayList<>();
        for (io.vfiodp.kube.kubevirt.model.MediatedHostDevice d : orEmpty(p.getMediatedDevices())) {
            mdev.add(d == null ? null
                    : new MediatedHostDevice(d.getMdevNameSelector(), d.getResourceName(), Boolean.TRUE.equals(d.getExternalResourceProvider())));
        }
        return new io.vfiodp.policy.config.PermittedHostDevices(pci, mdev);
    }

    /** The CR's {@code mediatedDevicesConfiguration} as the records {@link MdevTypesForNode} reads, or null when there is none. */
    static MediatedDevicesConfig mediated(MediatedDevicesConfiguration m) {
        if (m == null) return null;
        List<MediatedDevicesConfig.NodeTypes> perNode = m.getNodeMediatedDeviceTypes() == null ? null : new ArrayList<>();
        for (NodeMediatedDeviceTypes n : orEmpty(m.getNodeMediatedDeviceTypes())) {
            perNode.add(n == null ? null : new MediatedDevicesConfig.NodeTypes(n.getNodeSelector(), n.getMediatedDeviceTypes(), n.getMediatedDevicesTypes()));
        }
        return new MediatedDevicesConfig(m.getMediatedDeviceTypes(), m.getMediatedDevicesTypes(), perNode, Optional.ofNullable(m.getEnabled()));
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
