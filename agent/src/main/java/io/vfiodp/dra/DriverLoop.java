package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.DriverAction.WakeAt;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that changes the driver's state, {@value #THREAD_NAME}: what to do is decided
 * by {@link DriverStep}; this class owns what the step cannot: the thread, the timers, the clocks
 * and the edges the actions act on ({@link DriverEdges}). Every outcome is fed back to the step before anything else runs. The methods other
 * threads call only enqueue; every trigger comes with a look at the sockets, so that a trigger
 * needs no payload. Other threads read the state as it was after a step, never a half-made one.
 */
final class DriverLoop {

    static final String THREAD_NAME = "vfio-dra";
    /** Stopping both servers takes up to 2 s each (a graceful shutdown, then a forced one). */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final DraSettings settings;
    private final DriverStep step;
    private final Ticker ticker;
    private final Clock clock;
    private final DraListener listener;
    private final Worker thread;
    private final CoalescingTrigger checkSoon;
    private final DriverEdges edges;

    // Written by this thread only, after each step.
    private volatile DriverState state;

    // Confined to the loop thread.
    private ScheduledFuture<?> wakeUp;
    // applied states waiting for the slices they imply to be written (or to fail)
    private final List<CompletableFuture<Void>> slicesWritten = new ArrayList<>();

    /**
     * Starts the thread and its timers, then looks at the sockets (so serving starts at once).
     *
     * @param ticker the step's monotonic time (backoffs, wake-ups)
     * @param clock  the wall time of the health list's stamps
     * @param edges  makes what the actions act on; its services hand their work to this loop
     */
    DriverLoop(DraSettings settings, Ticker ticker, Clock clock, DraListener listener, Function<DriverLoop, DriverEdges> edges) {
        this.settings = settings;
        this.step = new DriverStep(settings);
        this.ticker = ticker;
        this.clock = clock;
        this.listener = listener;
        this.state = DriverState.initial(ticker.nanos());
        this.thread = Worker.start(THREAD_NAME);
        this.checkSoon = new CoalescingTrigger(thread, guarded(() -> feedWithLook(null)));
        this.edges = edges.apply(this);
        thread.every(settings.safetyCheck(), this::requestCheck);
        thread.every(settings.healthHeartbeat(), guarded(() -> feedWithLook(new DriverEvent.Heartbeat())));
        thread.every(settings.sliceResync(), guarded(() -> feedWithLook(new DriverEvent.ResyncSlices())));
        requestCheck();
    }

    /** The view gRPC handlers read right now. */
    DriverView view() {
        return state.view();
    }

    /**
     * Offer {@code next}'s DRA part, {@code view}, from now on. The answer completes once the slices
     * it implies are written, or their write failed (at once when closed).
     */
    CompletableFuture<Void> apply(TargetState next, DriverView view) {
        CompletableFuture<Void> takenIn = new CompletableFuture<>();
        if (!enqueue(() -> {
            slicesWritten.add(takenIn);
            feedWithLook(new DriverEvent.TargetChanged(next, view));
        })) {
            takenIn.complete(null);
        }
        return takenIn;
    }

    /** Look at the sockets again; cheap and coalesced, call it on any hint. */
    void requestCheck() {
        checkSoon.fire();
    }

    /** The kubelet's plugin watcher's verdict on our registration. */
    void registered(RegistrationStatus status) {
        enqueue(() -> feedWithLook(new DriverEvent.RegistrationVerdict(status.getPluginRegistered(), status.getError())));
    }

    /** The driver's standing, answered after everything enqueued before; {@code preparedClaims} counts the claims then. */
    CompletableFuture<DraStatus> status(IntSupplier preparedClaims) {
        CompletableFuture<DraStatus> f = new CompletableFuture<>();
        if (!enqueue(() -> f.complete(state.status(settings.driverName(), preparedClaims.getAsInt())))) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    private boolean enqueue(Runnable task) {
        return thread.offer(guarded(task));
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("DRA step failed; state is kept and retried at the next check", e);
            }
        };
    }

    /** Feeds {@code event} (if any) together with a look at the sockets: the step always decides on fresh observations. */
    private void feedWithLook(DriverEvent event) {
        DriverEvent look = new DriverEvent.Checked(edges.gone());
        feed(event == null ? List.of(look) : List.of(event, look));
    }

    /** Runs the step on {@code first}, carries out its actions, and feeds back their outcomes until none is left. */
    private void feed(List<DriverEvent> first) {
        Queue<List<DriverEvent>> events = new ArrayDeque<>(List.of(first));
        while (!events.isEmpty()) {
            DriverStep.Result result = step.next(state, events.remove(), new Now(ticker.nanos(), clock.instant()));
            state = result.state();
            if (wakeUp != null) wakeUp.cancel(false);
            wakeUp = null;
            for (DriverAction action : result.actions()) {
                try {
                    execute(action, events);
                } catch (RuntimeException e) {
                    // The state already counts on the rest: one action that fails must not skip them.
                    log.error("DRA action {} failed", action.getClass().getSimpleName(), e);
                }
            }
        }
        if (!slicesWritten.isEmpty() && (state.closed() || !state.slices().wanted() && !state.slices().inFlight())) {
            slicesWritten.forEach(f -> f.complete(null));
            slicesWritten.clear();
        }
    }

    private void execute(DriverAction action, Queue<List<DriverEvent>> outcomes) {
        switch (action) {
            case StartServer s -> outcomes.add(List.of(edges.start(s)));
            case StopServer s -> edges.stop(s.generation());
            case WakeAt w -> wakeUp = thread.schedule(this::requestCheck, Duration.ofNanos(w.nanos() - ticker.nanos()));
            case SendHealth h -> edges.sendHealth(h.list());
            case SyncSlices s -> edges.sync(s, outcome -> enqueue(() -> feed(List.of(outcome))));
            case ProbeTaints p -> edges.probe(p, outcome -> enqueue(() -> feed(List.of(outcome))));
            case NotifyHealthChanged h -> listener.healthChanged(h.resource(), h.deviceId(), h.from(), h.to());
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    /** Stops both servers (removing their sockets), the publisher and the thread. Idempotent. */
    void close() {
        thread.closeAfter(() -> {
            if (state.closed()) return;
            if (wakeUp != null) wakeUp.cancel(false);
            try {
                feed(List.of(new DriverEvent.Close()));
            } finally {
                slicesWritten.forEach(f -> f.complete(null));
                edges.close();
            }
        }, CLOSE_WAIT);
    }
}
