package io.vfiodp.dra.claims;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a container given one request of an extended-resource claim gets, as the device plugin's
 * Allocate would give it for the same devices: the env variables virt-launcher reads
 * ({@code PCI_RESOURCE_<NAME>} or {@code MDEV_PCI_RESOURCE_<NAME>}, and the companions variable
 * where Allocate sets one), in Allocate's order, and the host's VFIO device nodes. One CDI device
 * carries it, so that a container asking for N devices finds each variable once.
 *
 * @param request     the claim's request (the scheduler names them {@code container-<i>-request-<j>})
 * @param env         variable → value, in the order Allocate puts them
 * @param deviceNodes host paths, as {@code node.VfioPaths} orders them for the request's devices together
 */
public record RequestEdits(String request, Map<String, String> env, List<String> deviceNodes) {

    public RequestEdits {
        Objects.requireNonNull(request, "request");
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        deviceNodes = List.copyOf(deviceNodes);
    }
}
