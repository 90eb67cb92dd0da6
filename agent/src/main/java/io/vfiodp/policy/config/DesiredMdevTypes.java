package io.vfiodp.policy.config;

import java.util.List;
import java.util.Objects;

/**
 * The mediated device types KubeVirt wants on this node ({@code mediatedDevicesConfiguration}),
 * resolved for the node's labels.
 *
 * @param types           type names or ids, in the order the CR lists them, without duplicates
 * @param creationEnabled {@code mediatedDevicesConfiguration.enabled} (KubeVirt's default: true):
 *                        whether virt-handler creates and removes mdevs
 * @param origin          where the list came from, for logs: {@code nodeMediatedDeviceTypes[0,2]},
 *                        {@code mediatedDeviceTypes}, {@code mediatedDevicesTypes (deprecated)} or {@code none}
 */
public record DesiredMdevTypes(List<String> types, boolean creationEnabled, String origin) {

    public static final DesiredMdevTypes NONE = new DesiredMdevTypes(List.of(), true, "none");

    public DesiredMdevTypes {
        types = List.copyOf(types);
        Objects.requireNonNull(origin, "origin");
    }
}
