package io.vfiodp.testkit.dra;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A pod as the scheduler's extended-resource part reads it: its identity and its containers'
 * resource requests. Only the containers ({@code spec.containers}) are modelled, no init containers.
 *
 * @param uid the pod's UID, which the claim's owner reference and {@code reservedFor} name
 */
public record ExtendedResourcePod(String namespace, String name, String uid, List<Container> containers) {

    public ExtendedResourcePod {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uid, "uid");
        containers = List.copyOf(containers);
    }

    /**
     * A container and every resource it requests, by name: the counts of extended resources; the
     * values of the others ({@code cpu}, {@code memory}, ...) do not matter, but their names do, since
     * the scheduler numbers a request by its resource's place among all of the container's.
     */
    public record Container(String name, SortedMap<String, Long> requests) {
        public Container {
            Objects.requireNonNull(name, "name");
            requests = Collections.unmodifiableSortedMap(new TreeMap<>(requests));
        }

        /** A virt-launcher's {@code compute} container asking {@code count} of {@code resource}, beside what it always asks. */
        public static Container virtLauncher(String resource, long count) {
            return new Container("compute", new TreeMap<>(Map.of("cpu", 1L, "memory", 1L, "devices.kubevirt.io/kvm", 1L,
                    "devices.kubevirt.io/tun", 1L, "devices.kubevirt.io/vhost-net", 1L, resource, count)));
        }
    }
}
