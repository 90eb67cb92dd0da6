package io.vfiodp.plugin;

import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GetPreferredAllocation RPC as a pure function. Rules, in priority order:
 * <ol>
 *   <li>every {@code must_include} device is in the answer;</li>
 *   <li>the answer spans as few NUMA nodes as possible: nodes already used by the must-include
 *       devices first, then, if more are needed, the node that fits the rest most tightly, else the
 *       largest (so big nodes stay whole for big VMs);</li>
 *   <li>inside those nodes, devices that share a PCI bridge (a PCIe switch) with devices already
 *       chosen come first; a one-device request takes the device with the fewest switch-mates,
 *       so a multi-GPU VM later still finds them together;</li>
 *   <li>remaining ties go to the lowest device ID, so the answer is deterministic.</li>
 * </ol>
 * Available devices this resource does not know or that are unhealthy are never proposed: the
 * kubelet's list can be a moment older than our view. The answer lists the chosen IDs sorted.
 */
public final class PreferredAllocation {

    private PreferredAllocation() {}

    public static RpcOutcome<PreferredAllocationResponse> prefer(ResourceView view, PreferredAllocationRequest request) {
        PreferredAllocationResponse.Builder response = PreferredAllocationResponse.newBuilder();
        for (int c = 0; c < request.getContainerRequestsCount(); c++) {
            ContainerPreferredAllocationRequest container = request.getContainerRequests(c);
            String where = "GetPreferredAllocation " + view.name() + ", container request " + c + ": ";
            int size = container.getAllocationSize();
            if (size <= 0) return RpcOutcome.invalid(where + "allocation_size is " + size);
            Set<String> mustIds = new LinkedHashSet<>(container.getMustIncludeDeviceIDsList());
            if (mustIds.size() > size) {
                return RpcOutcome.invalid(where + mustIds.size() + " must-include devices exceed allocation_size " + size);
            }
            List<ExposedDevice> must = new ArrayList<>();
            for (String id : mustIds) {
                Optional<ExposedDevice> d = view.device(id);
                if (d.isEmpty()) {
                    return RpcOutcome.invalid(where + "must-include device " + id + " "
                            + view.ownerOf(id).map(o -> "belongs to resource " + o).orElse("is unknown to this node"));
                }
                must.add(d.get());
            }
            List<ExposedDevice> candidates = new ArrayList<>();
            for (String id : new LinkedHashSet<>(container.getAvailableDeviceIDsList())) {
                if (mustIds.contains(id)) continue;
                view.device(id).filter(d -> d.health().isHealthy()).ifPresent(candidates::add);
            }
            candidates.sort(Comparator.comparing(ExposedDevice::id));
            List<ExposedDevice> chosen = choose(must, candidates, size - must.size());
            List<String> ids = new ArrayList<>(must.size() + chosen.size());
            for (ExposedDevice d : must) ids.add(d.id());
            for (ExposedDevice d : chosen) ids.add(d.id());
            ids.sort(Comparator.naturalOrder());
            response.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
        }
        return new RpcOutcome.Granted<>(response.build());
    }

    /** Picks {@code need} of {@code candidates} (sorted by ID) to join {@code must}. */
    static List<ExposedDevice> choose(List<ExposedDevice> must, List<ExposedDevice> candidates, int need) {
        if (need <= 0) return List.of();
        if (candidates.size() <= need) return candidates;
        Set<Integer> nodes = numaNodes(must, candidates, need);
        List<ExposedDevice> pool = new ArrayList<>();
        for (ExposedDevice d : candidates) if (nodes.contains(d.numaNode())) pool.add(d);
        return bySwitchAffinity(must, pool, need);
    }

    private static Set<Integer> numaNodes(List<ExposedDevice> must, List<ExposedDevice> candidates, int need) {
        TreeMap<Integer, Integer> free = new TreeMap<>();
        for (ExposedDevice d : candidates) free.merge(d.numaNode(), 1, Integer::sum);
        Set<Integer> chosen = new LinkedHashSet<>();
        int remaining = need;
        for (ExposedDevice d : must) {
            if (chosen.add(d.numaNode())) remaining -= free.getOrDefault(d.numaNode(), 0);
        }
        while (remaining > 0) {
            // The tightest node that holds the rest; else the largest, and go on. Ties: lower node.
            Integer tightest = null;
            Integer largest = null;
            for (var e : free.entrySet()) {
                if (chosen.contains(e.getKey())) continue;
                int n = e.getValue();
                if (n >= remaining && (tightest == null || n < free.get(tightest))) tightest = e.getKey();
                if (largest == null || n > free.get(largest)) largest = e.getKey();
            }
            Integer next = tightest != null ? tightest : largest;
            chosen.add(next);
            remaining -= free.get(next);
        }
        return chosen;
    }

    private static List<ExposedDevice> bySwitchAffinity(List<ExposedDevice> must, List<ExposedDevice> pool, int need) {
        if (pool.size() <= need) return pool;
        List<ExposedDevice> selected = new ArrayList<>(must);
        List<ExposedDevice> remaining = new ArrayList<>(pool);
        List<ExposedDevice> chosen = new ArrayList<>(need);
        while (chosen.size() < need) {
            ExposedDevice best = null;
            int bestScore = 0;
            for (ExposedDevice c : remaining) {
                int score = selected.isEmpty() ? seedScore(c, remaining, need) : closeness(c, selected);
                if (best == null || score > bestScore) {
                    best = c;
                    bestScore = score;
                }
            }
            remaining.remove(best);
            selected.add(best);
            chosen.add(best);
        }
        chosen.sort(Comparator.comparing(ExposedDevice::id));
        return chosen;
    }

    // Higher is better. A multi-device request starts inside the tightest cluster; a single device
    // is taken from where it breaks up the fewest switch-mates.
    private static int seedScore(ExposedDevice c, List<ExposedDevice> pool, int need) {
        int depth = 0;
        for (ExposedDevice other : pool) if (other != c) depth = Math.max(depth, sharedBridges(c, other));
        return need == 1 ? -depth : depth;
    }

    private static int closeness(ExposedDevice c, List<ExposedDevice> selected) {
        int best = 0;
        for (ExposedDevice s : selected) best = Math.max(best, sharedBridges(c, s));
        return best;
    }

    /** How many bridges two devices have in common above them; more means a closer PCIe path. */
    static int sharedBridges(ExposedDevice a, ExposedDevice b) {
        List<PciAddress> x = a.upstreamBridges();
        List<PciAddress> y = b.upstreamBridges();
        // Lists run nearest first, root port last: the shared part is a common suffix.
        int n = 0;
        while (n < x.size() && n < y.size() && x.get(x.size() - 1 - n).equals(y.get(y.size() - 1 - n))) n++;
        return n;
    }
}
