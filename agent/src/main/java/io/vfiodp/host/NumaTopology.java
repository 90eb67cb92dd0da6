package io.vfiodp.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The host's NUMA nodes as {@code /sys/devices/system/node} shows them: each node's row of the
 * ACPI SLIT ({@code nodeN/distance}) and the socket its CPUs are in ({@code nodeN/cpulist}, then
 * {@code cpu/cpuX/topology/physical_package_id}). What could not be read is left out: a node
 * without distances, a node without a socket (a CPU-less memory node).
 */
public record NumaTopology(SortedMap<Integer, Node> nodes) {

    public static final NumaTopology NONE = new NumaTopology(new TreeMap<>());

    /**
     * @param distances the SLIT row: the distance to node 0, 1, ...; empty when unreadable
     * @param socket    the physical package of the node's CPUs; empty without CPUs or when unreadable
     */
    public record Node(List<Integer> distances, OptionalInt socket) {
        public Node {
            distances = List.copyOf(distances);
            Objects.requireNonNull(socket, "socket");
        }
    }

    public NumaTopology {
        nodes = Collections.unmodifiableSortedMap(new TreeMap<>(nodes));
    }

    /**
     * The nodes local to a device on {@code node} (KEP-6072's list form of
     * {@code resource.kubernetes.io/numaNode}, as Kubernetes' {@code deviceattribute} library
     * makes it): {@code node} first, then, in order, every other node at the smallest distance
     * from it, leaving out a node whose socket is known and not {@code node}'s. Only {@code node}
     * where its distances are unknown.
     */
    public List<Integer> localNodes(int node) {
        if (node < 0) throw new IllegalArgumentException("NUMA node " + node + " has no local nodes");
        Node self = nodes.get(node);
        List<Integer> out = new ArrayList<>(List.of(node));
        if (self == null || self.distances().size() <= node) return out;
        int nearest = Integer.MAX_VALUE;
        for (int i = 0; i < self.distances().size(); i++) if (i != node) nearest = Math.min(nearest, self.distances().get(i));
        for (int i = 0; i < self.distances().size(); i++) {
            if (i == node || self.distances().get(i) != nearest) continue;
            Node other = nodes.get(i);
            boolean otherSocket = self.socket().isPresent() && other != null && other.socket().isPresent()
                    && other.socket().getAsInt() != self.socket().getAsInt();
            if (!otherSocket) out.add(i);
        }
        return out;
    }
}
