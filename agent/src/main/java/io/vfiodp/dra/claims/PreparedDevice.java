package io.vfiodp.dra.claims;

import io.vfiodp.dra.model.AttributeValue;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One device of a prepared claim, with everything needed to write its files again and to answer
 * a repeated prepare without the API.
 *
 * @param request    the allocation result's request ({@code gpu}, or {@code gpu/t4} for a subrequest)
 * @param pool       the pool the device is in (this node's)
 * @param device     its name in the pool
 * @param deviceId   PCI address or mdev UUID, for logs and for telling which claim holds it
 * @param vfioPaths  the host device nodes the container gets
 * @param attributes what the metadata file lists for it
 */
public record PreparedDevice(String request, String pool, String device, String deviceId, List<String> vfioPaths,
                             SortedMap<String, AttributeValue> attributes) {

    public PreparedDevice {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(deviceId, "deviceId");
        vfioPaths = List.copyOf(vfioPaths);
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    /** The request without its subrequest: what the kubelet and the metadata file path name. */
    public String baseRequest() {
        int slash = request.indexOf('/');
        return slash < 0 ? request : request.substring(0, slash);
    }
}
