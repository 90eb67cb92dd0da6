package io.vfiodp.serve;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A node's pool as the scheduler reads it, from a watch on the ResourceSlices: the slices of the
 * pool's newest generation, once all of them are there (a pool whose newest generation is
 * incomplete is not used). Waiters wake on every watch event, so a time taken is the event's
 * arrival, not a poll's.
 */
final class PoolWatch implements AutoCloseable {

    private final String pool;
    private final Map<String, ResourceSlice> slices = new HashMap<>();
    private final Watch watch;

    PoolWatch(KubernetesClient client, String pool) {
        this.pool = pool;
        this.watch = client.dynamicResourceAllocation().v1().resourcesSlices().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, ResourceSlice s) {
                synchronized (PoolWatch.this) {
                    if (action == Action.DELETED) slices.remove(s.getMetadata().getName());
                    else slices.put(s.getMetadata().getName(), s);
                    PoolWatch.this.notifyAll();
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
    }

    /** The complete pool's devices by name, or empty while its newest generation is incomplete. */
    synchronized Optional<Map<String, Device>> devices() {
        long newest = -1;
        for (ResourceSlice s : slices.values()) {
            if (pool.equals(s.getSpec().getPool().getName())) newest = Math.max(newest, s.getSpec().getPool().getGeneration());
        }
        Map<String, Device> out = new HashMap<>();
        int count = 0;
        long expected = -1;
        for (ResourceSlice s : slices.values()) {
            var p = s.getSpec().getPool();
            if (!pool.equals(p.getName()) || p.getGeneration() != newest) continue;
            count++;
            expected = p.getResourceSliceCount();
            for (Device d : s.getSpec().getDevices()) out.put(d.getName(), d);
        }
        return count > 0 && count == expected ? Optional.of(out) : Optional.empty();
    }

    /** The slices of the pool's newest generation: their device counts, in name order. */
    synchronized List<Integer> sliceSizes() {
        long newest = slices.values().stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(-1);
        return slices.values().stream().filter(s -> s.getSpec().getPool().getGeneration() == newest)
                .sorted((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()))
                .map(s -> s.getSpec().getDevices().size()).toList();
    }

    /** Whether {@code device} is in the complete pool and tainted (any taint). */
    static Predicate<Map<String, Device>> tainted(String device, boolean tainted) {
        return devices -> {
            Device d = devices.get(device);
            return d != null && (d.getTaints() != null && !d.getTaints().isEmpty()) == tainted;
        };
    }

    /** Waits until the complete pool matches. */
    synchronized Map<String, Device> await(Predicate<Map<String, Device>> match, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Map<String, Device>> now = devices();
            if (now.isPresent() && match.test(now.get())) return now.get();
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException("pool " + pool + " did not match within " + timeout + "; slices " + sliceSizes());
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** Nanoseconds from the start of {@code change} to the watch event after which the pool matches. */
    long timed(Change change, Predicate<Map<String, Device>> match, Duration timeout) throws Exception {
        long start = System.nanoTime();
        change.run();
        await(match, timeout);
        return System.nanoTime() - start;
    }

    interface Change {
        void run() throws Exception;
    }

    @Override
    public void close() {
        watch.close();
    }
}
