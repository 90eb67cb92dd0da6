package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimBook;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.kubelet.PluginSockets;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only place that changes the driver's state: the node state, the view built from it, the
 * sockets, the prepared claims, and what goes to the slice publisher, the health streams and the
 * listener. Everything runs on one {@link Worker} ({@value #THREAD_NAME}); a pass is
 * level-triggered like the device-plugin side's reconcile loop: it compares what should be with
 * what is and fixes the difference, so triggers (a file event, a timer, a registration) carry no
 * payload and are coalesced.
 */
final class DriverLoop {

    static final String THREAD_NAME = "vfio-dra";
    /** Stopping both servers takes up to 2 s each (a graceful shutdown, then a forced one). */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final String driver;
    private final Worker thread;
    private final CoalescingTrigger checkSoon;
    private final PluginSockets sockets;
    private final ClaimBook book;
    private final SlicePublisher slices;
    private final HealthService health;
    private final HealthList healthList;
    private final DraListener listener;

    // Read by other threads, written by this one.
    private volatile DriverView view = DriverView.EMPTY;
    private volatile List<String> preparedUids;

    // Confined to the loop thread.
    private TargetState target = TargetState.EMPTY;
    // Until the first state arrives, publishing would wipe the slices a previous run left (and a restart changes nothing).
    private boolean applied;
    private boolean viewStale;
    private List<List<SliceLayout.Entry>> publishedLayout;
    private NodeWatchResourcesResponse lastHealth;
    private Optional<Boolean> registered = Optional.empty();
    private ScheduledFuture<?> wakeUp;
    private boolean closed;

    /** @param sockets makes the servers, whose services hand their work to this loop */
    DriverLoop(String driver, Function<DriverLoop, PluginSockets> sockets, ClaimBook book, SlicePublisher slices, HealthService health,
               HealthList healthList, DraListener listener) {
        this.driver = driver;
        this.book = book;
        this.slices = slices;
        this.health = health;
        this.healthList = healthList;
        this.listener = listener;
        this.preparedUids = List.copyOf(book.claims().keySet());
        this.thread = Worker.start(THREAD_NAME);
        this.checkSoon = new CoalescingTrigger(thread, guarded(this::pass));
        this.sockets = sockets.apply(this);
    }

    /** Runs {@code task} on the loop thread every {@code period}. */
    void every(Duration period, Runnable task) {
        thread.every(period, guarded(task));
    }

    DriverView view() {
        return view;
    }

    boolean isPrepared(String uid) {
        return preparedUids.contains(uid);
    }

    DraListener listener() {
        return listener;
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

    /** Look at the sockets again; cheap and coalesced, call it on any hint. */
    void requestCheck() {
        checkSoon.fire();
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
        return onLoop(() -> {
            try {
                return work.apply(book, view);
            } finally {
                preparedUids = List.copyOf(book.claims().keySet());
            }
        });
    }

    CompletableFuture<DraStatus> status() {
        return onLoop(() -> {
            Map<ResourceName, int[]> counts = new LinkedHashMap<>();
            for (DraDevice d : view.devices().values()) {
                int[] c = counts.computeIfAbsent(d.resource(), r -> new int[2]);
                c[0]++;
                if (d.healthy()) c[1]++;
            }
            List<DraStatus.Resource> resources = new ArrayList<>();
            counts.forEach((name, c) -> resources.add(new DraStatus.Resource(name, c[0], c[1])));
            SlicePublisher.Published p = slices.published();
            return new DraStatus(driver, sockets.serving(), registered, resources, book.claims().size(), p.generation(), p.problem());
        });
    }

    private <T> CompletableFuture<T> onLoop(Supplier<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!enqueue(() -> {
            try {
                f.complete(work.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        })) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    private boolean enqueue(Runnable task) {
        return thread.offer(guarded(task));
    }

    private Runnable guarded(Runnable task) {
        return () -> {
            if (closed) return;
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("DRA step failed; state is kept and retried at the next check", e);
            }
        };
    }

    private void pass() {
        long now = System.nanoTime();
        sockets.ensure(now);
        if (viewStale) {
            DriverView next = DriverView.of(target);
            reportHealthChanges(view, next);
            view = next;
            viewStale = false;
        }
        if (applied) publish();
        if (wakeUp != null) wakeUp.cancel(false);
        wakeUp = sockets.nextAttempt().map(at -> thread.schedule(this::requestCheck, Duration.ofNanos(at - now))).orElse(null);
    }

    private void reportHealthChanges(DriverView before, DriverView after) {
        for (DraDevice d : after.devices().values()) {
            DraDevice was = before.devices().get(d.name());
            if (was != null && !was.device().health().equals(d.device().health())) {
                listener.healthChanged(d.resource(), d.device().id(), was.device().health(), d.device().health());
            }
        }
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
        thread.closeAfter(() -> {
            if (closed) return;
            closed = true;
            if (wakeUp != null) wakeUp.cancel(false);
            sockets.close();
        }, CLOSE_WAIT);
    }
}
