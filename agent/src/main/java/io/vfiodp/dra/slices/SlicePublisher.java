package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vfiodp.dra.model.JsonTree;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this node's ResourceSlices as the driver's step asks, on the driver's API thread (the
 * worker it is given, {@code vfio-dra-api}), since the API server may be slow to answer. It decides nothing: when to
 * sync, what to publish, when to retry and what to log are the step's; a sync makes the API hold
 * the layout it is given and reports what the API holds then.
 *
 * <p>A sync reads the slices by their names ({@code <node>-<driver>-<i>}, from 0 until one is
 * missing). Where exactly one of them differs from the layout (a device's health changed, a
 * device came or went within its slice), it updates that one in place at the pool's generation:
 * one write, atomic for every consumer. Otherwise it writes every slice with the pool's next
 * generation and deletes the ones left over. Reading by name needs only {@code get}: no right to
 * list or watch every node's slices.
 *
 * <p>Slices and the Node go through fabric8 as generic resources (JSON trees), not its typed
 * model: see {@link SliceLayout}.
 */
public final class SlicePublisher implements AutoCloseable {

    /** A sync in flight may wait on the API server's answers. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");
    /** Named outright: the client then asks no discovery for the plural. */
    static final ResourceDefinitionContext SLICES = new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1")
            .withKind("ResourceSlice").withPlural("resourceslices").withNamespaced(false).build();
    static final ResourceDefinitionContext NODES = new ResourceDefinitionContext.Builder().withGroup("").withVersion("v1").withKind("Node")
            .withPlural("nodes").withNamespaced(false).build();

    private final KubernetesClient client;
    private final String driver;
    private final String node;
    private final Worker thread;

    /** Where a sync left the API: the pool's generation and slice count, or why it could not write. */
    public sealed interface Outcome {

        /** The Node's UID, when this sync read it: what the slices name as their owner. */
        Optional<String> nodeUid();

        /**
         * The API holds the layout, {@code devices} in {@code slices}; {@code written} when this sync had to write it;
         * {@code taintsDropped} when what it wrote came back without the taints it carried (feature DRADeviceTaints off).
         */
        record Synced(long generation, int slices, int devices, boolean written, Optional<String> nodeUid, boolean taintsDropped)
                implements Outcome {

            public Synced(long generation, int slices, int devices, boolean written, Optional<String> nodeUid) {
                this(generation, slices, devices, written, nodeUid, false);
            }
        }

        /** The API could not be made to hold it; {@code generation} is the highest this sync saw or wrote. */
        record Failed(String problem, long generation, Optional<String> nodeUid) implements Outcome {}
    }

    /** Whether the API server keeps device taints, as a dry-run create of a tainted slice shows, or why that could not be told. */
    public sealed interface Probe {
        record Kept() implements Probe {}

        record Dropped() implements Probe {}

        record Failed(String problem) implements Probe {}
    }

    /** @param thread where syncs and probes run; closed with the publisher */
    public SlicePublisher(KubernetesClient client, String driver, String node, Worker thread) {
        this.client = Objects.requireNonNull(client, "client");
        this.driver = driver;
        this.node = node;
        this.thread = Objects.requireNonNull(thread, "thread");
    }

    /**
     * Makes the API hold {@code layout} on the publisher's thread, then hands the outcome to {@code done}.
     *
     * @param generation the pool's generation as far as the caller knows; a pool written anew goes above it and above what the API
     *                   holds, a slice updated in place keeps the generation the API holds (never below this one)
     * @param nodeUid    the Node's UID when known; when empty it is read before writing, and the slices go without an owner if it cannot be
     */
    public void sync(List<List<SliceLayout.Entry>> layout, long generation, Optional<String> nodeUid, Consumer<Outcome> done) {
        List<List<SliceLayout.Entry>> copy = List.copyOf(layout);
        thread.offer(() -> {
            Outcome outcome;
            try {
                outcome = syncNow(copy, generation, nodeUid);
            } catch (RuntimeException e) {
                outcome = new Outcome.Failed("cannot write the ResourceSlices of pool " + node + ": " + e, generation, nodeUid);
            }
            done.accept(outcome);
        });
    }

    /**
     * Asks the API server, on the publisher's thread, whether it keeps {@code taint}: a dry run of
     * creating a slice of one device carrying it, which stores nothing (and needs no right beyond
     * {@code create}), so that no unhealthy device is ever published without its taint to find out.
     */
    public void probeTaints(HealthTaint taint, Consumer<Probe> done) {
        thread.offer(() -> {
            Probe probe;
            try {
                GenericKubernetesResource answer = slices().resource(SliceLayout.probe(driver, node, taint)).dryRun().create();
                boolean kept = SliceLayout.devices(answer).stream().anyMatch(d -> !JsonTree.list(d, "taints").isEmpty());
                probe = kept ? new Probe.Kept() : new Probe.Dropped();
            } catch (RuntimeException e) {
                probe = new Probe.Failed("cannot ask the API server whether it keeps device taints: " + problem(e));
            }
            done.accept(probe);
        });
    }

    private static String problem(RuntimeException e) {
        return e instanceof KubernetesClientException k && k.getCode() > 0 ? "HTTP " + k.getCode() + ": " + k.getMessage() : e.toString();
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> slices() {
        return client.genericKubernetesResources(SLICES);
    }

    private Outcome syncNow(List<List<SliceLayout.Entry>> layout, long known, Optional<String> nodeUid) {
        long generation = known;
        try {
            Map<String, GenericKubernetesResource> existing = new HashMap<>();
            for (int i = 0; ; i++) {
                GenericKubernetesResource s = slices().withName(SliceLayout.sliceName(node, driver, i)).get();
                if (s == null) break;
                if (!ours(s)) {
                    throw new KubernetesClientException("ResourceSlice " + s.getMetadata().getName() + " exists but is not driver " + driver
                            + "'s slice of node " + node + "; delete it to let this driver publish");
                }
                existing.put(s.getMetadata().getName(), s);
            }
            long seen = existing.values().stream().mapToLong(s -> Objects.requireNonNullElse(generation(s), 0L)).max().orElse(0);
            int devices = layout.stream().mapToInt(List::size).sum();
            Optional<List<Integer>> changed = changedInPlace(existing, layout);
            if (changed.isPresent() && changed.get().isEmpty()) return new Outcome.Synced(seen, layout.size(), devices, false, nodeUid);
            if (nodeUid.isEmpty()) nodeUid = nodeUid();
            if (changed.isPresent() && changed.get().size() == 1 && seen >= generation) {
                // one update is atomic: consumers never see the pool half-written, so its generation stays, as Kubernetes'
                // own ResourceSlice controller does it (a health change is one such update: see SliceLayout)
                int i = changed.get().getFirst();
                GenericKubernetesResource stored = write(layout, i, seen, nodeUid, existing);
                return new Outcome.Synced(seen, layout.size(), devices, true, nodeUid, TaintTimes.dropped(layout.get(i), stored));
            }
            generation = Math.max(generation, seen) + 1;
            boolean taintsDropped = false;
            for (int i = 0; i < layout.size(); i++) {
                taintsDropped |= TaintTimes.dropped(layout.get(i), write(layout, i, generation, nodeUid, existing));
            }
            for (String leftOver : existing.keySet()) slices().withName(leftOver).delete();
            return new Outcome.Synced(generation, layout.size(), devices, true, nodeUid, taintsDropped);
        } catch (KubernetesClientException e) {
            return new Outcome.Failed("cannot write the ResourceSlices of pool " + node + (e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "")
                    + ": " + e.getMessage(), generation, nodeUid);
        }
    }

    /** Creates or updates slice {@code i} of {@code layout} at {@code generation}, taking it out of {@code existing}; what the API stored. */
    private GenericKubernetesResource write(List<List<SliceLayout.Entry>> layout, int i, long generation, Optional<String> nodeUid,
                                            Map<String, GenericKubernetesResource> existing) {
        GenericKubernetesResource slice = SliceLayout.slice(driver, node, i, layout.size(), generation, layout.get(i), nodeUid);
        GenericKubernetesResource old = existing.remove(slice.getMetadata().getName());
        if (old == null) return slices().resource(slice).create();
        slice.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
        TaintTimes.keep(old, slice);
        return slices().resource(slice).update();
    }

    /**
     * The indices of the slices whose devices differ from {@code layout}, where the API holds the pool
     * as one generation of as many slices, each of this pool and count; empty where the pool must be
     * written anew (slices missing or extra, generations mixed).
     */
    private Optional<List<Integer>> changedInPlace(Map<String, GenericKubernetesResource> existing, List<List<SliceLayout.Entry>> layout) {
        if (existing.size() != layout.size()) return Optional.empty();
        Long gen = null;
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < layout.size(); i++) {
            GenericKubernetesResource s = existing.get(SliceLayout.sliceName(node, driver, i));
            if (s == null || JsonTree.at(s.getAdditionalProperties(), "spec", "pool") == null) return Optional.empty();
            Map<String, Object> pool = JsonTree.map(s.getAdditionalProperties(), "spec", "pool");
            if (!node.equals(JsonTree.text(pool, "name")) || !Long.valueOf(layout.size()).equals(SliceLayout.integral(pool.get("resourceSliceCount")))) {
                return Optional.empty();
            }
            if (gen != null && !gen.equals(generation(s))) return Optional.empty();
            gen = generation(s);
            if (!SliceLayout.entries(s).equals(Optional.of(layout.get(i)))) changed.add(i);
        }
        return Optional.of(changed);
    }

    private boolean ours(GenericKubernetesResource s) {
        return driver.equals(JsonTree.text(s.getAdditionalProperties(), "spec", "driver"))
                && node.equals(JsonTree.text(s.getAdditionalProperties(), "spec", "nodeName"))
                && s.getMetadata() != null && s.getMetadata().getName() != null;
    }

    /** {@code spec.pool.generation}, or null when the slice has none. */
    private static Long generation(GenericKubernetesResource s) {
        return SliceLayout.integral(JsonTree.at(s.getAdditionalProperties(), "spec", "pool", "generation"));
    }

    /** The Node's UID, so that the slices go when the Node does; empty, said in the log, when the Node cannot be read. */
    private Optional<String> nodeUid() {
        try {
            GenericKubernetesResource n = client.genericKubernetesResources(NODES).withName(node).get();
            if (n != null && n.getMetadata().getUid() != null) return Optional.of(n.getMetadata().getUid());
            log.warn("DRA: Node {} not found; its ResourceSlices are written without an owner", node);
        } catch (KubernetesClientException e) {
            log.warn("DRA: cannot read Node {} ({}); its ResourceSlices are written without an owner", node, e.getMessage());
        }
        return Optional.empty();
    }

    /** Stops its thread after the sync in flight; the slices stay (the kubelet removes a driver's slices when it is gone for good). */
    @Override
    public void close() {
        thread.closeAfter(() -> {}, CLOSE_WAIT);
    }
}
