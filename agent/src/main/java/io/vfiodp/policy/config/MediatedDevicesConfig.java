package io.vfiodp.policy.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code mediatedDevicesConfiguration} block, as written in the KubeVirt CR or the
 * {@code --config} file: which mdev types nodes should carry. {@link MdevTypesForNode} resolves it
 * for one node. Missing lists are empty; {@code mediatedDevicesTypes} is KubeVirt's deprecated
 * spelling of {@code mediatedDeviceTypes}.
 *
 * @param nodeMediatedDeviceTypes per-node entries, in order; an entry written as a bare {@code -}
 *                                is kept as null so that the others keep their index
 */
public record MediatedDevicesConfig(List<String> mediatedDeviceTypes, List<String> mediatedDevicesTypes,
                                    List<NodeTypes> nodeMediatedDeviceTypes, Optional<Boolean> enabled) {

    /** One {@code nodeMediatedDeviceTypes} entry: the types for nodes whose labels match {@code nodeSelector}. */
    public record NodeTypes(Map<String, String> nodeSelector, List<String> mediatedDeviceTypes, List<String> mediatedDevicesTypes) {
        public NodeTypes {
            nodeSelector = nodeSelector == null ? Map.of() : Collections.unmodifiableMap(new java.util.LinkedHashMap<>(nodeSelector));
            mediatedDeviceTypes = names(mediatedDeviceTypes);
            mediatedDevicesTypes = names(mediatedDevicesTypes);
        }
    }

    public MediatedDevicesConfig {
        mediatedDeviceTypes = names(mediatedDeviceTypes);
        mediatedDevicesTypes = names(mediatedDevicesTypes);
        nodeMediatedDeviceTypes = nodeMediatedDeviceTypes == null ? List.of()
                : Collections.unmodifiableList(new ArrayList<>(nodeMediatedDeviceTypes));
        Objects.requireNonNull(enabled, "enabled");
    }

    /** Type names as written, without the empty ones (KubeVirt skips them too). */
    private static List<String> names(List<String> list) {
        if (list == null) return List.of();
        return list.stream().filter(s -> s != null && !s.isBlank()).toList();
    }
}
