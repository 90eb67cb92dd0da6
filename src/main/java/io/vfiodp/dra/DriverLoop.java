package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimBook;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.kubelet.PluginSockets;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only place that changes the driver's state: the node state and health reports, the view
 * built from them, the sockets, the prepared claims, and what goes to the slice publisher and the
 * health streams. Everything runs on one thread ({@value #THREAD_NAME}); a pass is level-triggered
 * like the device-plugin side's reconcile loop: it compares what should be with what is and fixes
 * the difference, so triggers (a file event, a timer, a registration) carry no payload.
 */
final class DriverLoop {

    static final String THREAD_NAME = "vfio-dra";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final ScheduledThreadPoolExecutor thread;
    private final PluginSockets sockets;
    private final ClaimBook book;
    private final SlicePublisher slices;
    private final HealthService health;
    private final HealthList healthList;
    private final AtomicBoolean passQueued = new AtomicBoolean();

    // Read by other threads, written by this one.
    private volatile DriverView view = DriverView.EMPTY;
    private volatile List<String> preparedUids = List.of();

    // Confined to the loop thread.
    private TargetState target = TargetState.EMPTY;
    // Until the first state arrives, publishing would wipe the slices a previous run left (and a restart changes nothing).
    private boolean applied;
    private final Map<String, Health> healthReports = new HashMap<>();
    private boolean viewStale;
    private List<List<SliceLayout.Entry>> publishedLayout;
    private NodeWatchResourcesResponse lastHealth;
    private Optional<Boolean> registered = Optional.empty();
    private ScheduledFuture<?> wakeUp;
    private boolean closed;

    /** @param sockets makes the servers, whose services hand their work to this loop */
    DriverLoop(Function<DriverLoop, PluginSockets> sockets, ClaimBook book, SlicePublisher slices, HealthService health, HealthList healthList) {
        this.sockets = sockets.apply(this);
        this.book = book;
        this.slices = slices;
        this.health = health;
        this.healthList = healthList;
        this.preparedUids = List.copyOf(book.claims().keySet());
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    void every(long periodMillis, Runnable task) {
        thread.scheduleWithFixedDelay(() -> enqueue(task), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    DriverView view() {
        return view;
    }

    boolean isPrepared(String uid) {
        return preparedUids.contains(uid);
    }

    void apply(TargetState next) {
        enqueue(() -> {
            if (!next.equals(target) || !applied) {
                target = next;
                viewStale = true;
            }
            applied = true;
            pass();
        });
    }

    void reportHealth(String deviceId, Health h) {
        enqueue(() -> {
            Health before = h.isHealthy() ? healthReports.remove(deviceId) : healthReports.put(deviceId, h);
            if (!h.equals(before == null ? Health.HEALTHY : before)) viewStale = true;
            pass();
        });
    }

    void requestCheck() {
        if (passQueued.compareAndSet(false, true) && !enqueue(this::pass)) passQueued.set(false);
    }

    void registered(RegistrationStatus status) {
        enqueue(() -> {
            registered = Optional.of(status.getPluginRegistered());
            if (status.getPluginRegistered()) {
                log.info("DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)");
                slices.requestSync();
            } else {
                log.warn("DRA: the kubelet refused the registration: {}", status.getError());
            }
        });
    }

    /** Repeats the health list on every stream, so the kubelet does not time the devices out. */
    void heartbeat() {
        if (lastHealth != null) health.publish(lastHealth);
    }

    /** Runs {@code work} with the claim book on the loop thread; the result also updates what other threads read. */
    <T> CompletableFuture<T> withBook(BiFunction<ClaimBook, DriverView, T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!enqueue(() -> {
            try {
                f.complete(work.apply(book, view));
            } finally {
                preparedUids = List.copyOf(book.claims().keySet());
            }
        })) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    CompletableFuture<DraStatus> status() {
        CompletableFuture<DraStatus> f = new CompletableFuture<>();
        if (!enqueue(() -> {
            SlicePublisher.Published p = slices.published();
            int healthy = (int) view.devices().values().stream().filter(DraDevice::healthy).count();
            f.complete(new DraStatus(sockets.serving(), registered, view.devices().size(), healthy, book.claims().size(), p.generation(), p.problem()));
        })) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    private boolean enqueue(Runnable task) {
        try {
            thread.execute(() -> {
                if (closed) return;
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.error("DRA step failed; state is kept and retried at the next check", e);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void pass() {
        passQueued.set(false);
        long now = System.nanoTime();
        sockets.ensure(now);
        if (viewStale) {
            view = DriverView.of(target, healthReports);
            viewStale = false;
        }
        if (applied) publish();
        if (wakeUp != null) wakeUp.cancel(false);
        wakeUp = sockets.nextAttempt()
                .map(at -> thread.schedule(this::requestCheck, Math.max(0, at - now), TimeUnit.NANOSECONDS))
                .orElse(null);
    }

    private void publish() {
        List<List<SliceLayout.Entry>> layout = SliceLayout.of(view);
        if (!layout.equals(publishedLayout)) {
            publishedLayout = layout;
            slices.publish(layout);
        }
        NodeWatchResourcesResponse list = healthList.of(view);
        if (!list.equals(lastHealth)) {
            lastHealth = list;
            health.publish(list);
        }
    }

    /** Ends the streams, stops both servers (removing their sockets) and the thread. Idempotent. */
    void close() {
        try {
            thread.submit((Callable<Void>) () -> {
                closed = true;
                if (wakeUp != null) wakeUp.cancel(false);
                sockets.close();
                return null;
            }).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("DRA: shutdown of the servers did not finish cleanly: {}", e.toString());
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
