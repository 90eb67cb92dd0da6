package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's ResourceSlices equal to the layout it was last given, on its own thread
 * ({@value #THREAD_NAME}): level-triggered, so a new layout, a registration (the kubelet deletes a
 * node's slices when it starts, and a driver's when it was gone a while) and a periodic resync all
 * just ask for a pass. A pass reads the slices by their names ({@code <node>-<driver>-<i>}, from 0
 * until one is missing), and when they differ from the layout writes every slice with the pool's
 * next generation and deletes the ones left over. Reading by name needs only {@code get}: no right
 * to list or watch every node's slices. Failures are retried with backoff and logged when the
 * problem changes.
 */
public final class SlicePublisher implements AutoCloseable {

    static final String THREAD_NAME = "vfio-dra-slices";
    /** A pass in flight may wait on the API server's answers. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final KubernetesClient client;
    private final String driver;
    private final String node;
    private final Duration resync;
    private final Backoff backoff;
    private final Worker thread;
    private final CoalescingTrigger syncSoon;
    // Empty until the first layout: a pass before it would delete the slices a previous run left.
    private volatile Optional<List<List<SliceLayout.Entry>>> desired = Optional.empty();
    private volatile Published published = new Published(0, 0, Optional.empty());

    // Confined to the publisher thread.
    private long generation;
    private int failures;
    private final ProblemLog problems = new ProblemLog(log);
    private ScheduledFuture<?> retry;
    private Optional<OwnerReference> owner = Optional.empty();
    private boolean closed;

    /** What the API holds as far as the last pass saw: the pool's generation, its slice count, the last failure. */
    public record Published(long generation, int slices, Optional<String> problem) {}

    public SlicePublisher(KubernetesClient client, String driver, String node, Duration resync, Backoff backoff) {
        this.client = Objects.requireNonNull(client, "client");
        this.driver = driver;
        this.node = node;
        this.resync = resync;
        this.backoff = backoff;
        this.thread = Worker.start(THREAD_NAME);
        this.syncSoon = new CoalescingTrigger(thread, this::guardedSync);
        thread.every(resync, this::requestSync);
    }

    /** Publish {@code layout} from now on. */
    public void publish(List<List<SliceLayout.Entry>> layout) {
        desired = Optional.of(List.copyOf(layout));
        requestSync();
    }

    /** Compare with the API soon; cheap and coalesced. */
    public void requestSync() {
        syncSoon.fire();
    }

    public Published published() {
        return published;
    }

    private void guardedSync() {
        if (closed) return;
        try {
            sync();
        } catch (RuntimeException e) {
            log.error("DRA slice publishing step failed; retried at the next pass", e);
        }
    }

    private NonNamespaceOperation<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>> slices() {
        return client.dynamicResourceAllocation().v1().resourcesSlices();
    }

    private void sync() {
        if (desired.isEmpty()) return;
        List<List<SliceLayout.Entry>> layout = desired.get();
        try {
            Map<String, ResourceSlice> existing = new HashMap<>();
            for (int i = 0; ; i++) {
                ResourceSlice s = slices().withName(SliceLayout.sliceName(node, driver, i)).get();
                if (s == null) break;
                if (!ours(s)) {
                    throw new KubernetesClientException("ResourceSlice " + s.getMetadata().getName() + " exists but is not driver " + driver
                            + "'s slice of node " + node + "; delete it to let this driver publish");
                }
                existing.put(s.getMetadata().getName(), s);
            }
            long seen = existing.values().stream().mapToLong(s -> s.getSpec().getPool().getGeneration() == null ? 0 : s.getSpec().getPool().getGeneration())
                    .max().orElse(0);
            if (upToDate(existing, layout)) {
                generation = seen;
            } else {
                if (owner.isEmpty()) owner = nodeOwner();
                generation = Math.max(generation, seen) + 1;
                for (int i = 0; i < layout.size(); i++) {
                    ResourceSlice slice = SliceLayout.slice(driver, node, i, layout.size(), generation, layout.get(i), owner);
                    ResourceSlice old = existing.remove(slice.getMetadata().getName());
                    if (old == null) {
                        slices().resource(slice).create();
                    } else {
                        slice.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
                        slices().resource(slice).update();
                    }
                }
                for (String leftOver : existing.keySet()) slices().withName(leftOver).delete();
                log.info("DRA: published {} device(s) of pool {} in {} ResourceSlice(s), generation {}",
                        layout.stream().mapToInt(List::size).sum(), node, layout.size(), generation);
            }
            published = new Published(generation, layout.size(), Optional.empty());
            problems.resolved("DRA: ResourceSlices of pool " + node + " are written again");
            failures = 0;
        } catch (KubernetesClientException e) {
            failed("cannot write the ResourceSlices of pool " + node + (e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "") + ": " + e.getMessage());
        }
    }

    private boolean upToDate(Map<String, ResourceSlice> existing, List<List<SliceLayout.Entry>> layout) {
        if (existing.size() != layout.size()) return false;
        Long gen = null;
        for (int i = 0; i < layout.size(); i++) {
            ResourceSlice s = existing.get(SliceLayout.sliceName(node, driver, i));
            if (s == null || s.getSpec().getPool() == null) return false;
            var pool = s.getSpec().getPool();
            if (!node.equals(pool.getName()) || !Long.valueOf(layout.size()).equals(pool.getResourceSliceCount())) return false;
            if (gen != null && !gen.equals(pool.getGeneration())) return false;
            gen = pool.getGeneration();
            if (!SliceLayout.entries(s).equals(Optional.of(layout.get(i)))) return false;
        }
        return true;
    }

    private boolean ours(ResourceSlice s) {
        return s.getSpec() != null && driver.equals(s.getSpec().getDriver()) && node.equals(s.getSpec().getNodeName())
                && s.getMetadata() != null && s.getMetadata().getName() != null;
    }

    /** The Node as owner, so the slices go when the Node does; without it when the Node cannot be read. */
    private Optional<OwnerReference> nodeOwner() {
        try {
            Node n = client.nodes().withName(node).get();
            if (n != null && n.getMetadata().getUid() != null) {
                return Optional.of(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(node)
                        .withUid(n.getMetadata().getUid()).withController(true).build());
            }
            log.warn("DRA: Node {} not found; its ResourceSlices are written without an owner", node);
        } catch (KubernetesClientException e) {
            log.warn("DRA: cannot read Node {} ({}); its ResourceSlices are written without an owner", node, e.getMessage());
        }
        return Optional.empty();
    }

    private void failed(String problem) {
        failures++;
        Duration delay = backoff.delayAfter(failures);
        problems.problem(problem, "DRA: " + problem + "; retrying (backoff up to " + backoff.max().toMillis() + " ms)");
        published = new Published(generation, published.slices(), Optional.of(problem));
        if (retry != null) retry.cancel(false);
        retry = thread.schedule(this::requestSync, delay);
    }

    /** Stops the thread; the slices stay (the kubelet removes a driver's slices when it is gone for good). */
    @Override
    public void close() {
        // on the thread, so that a pass in flight ends (and schedules no retry) first
        thread.closeAfter(() -> closed = true, CLOSE_WAIT);
    }
}
