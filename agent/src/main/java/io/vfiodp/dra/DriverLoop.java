package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.kubelet.StepLoop;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.triggers.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that changes the driver's state, {@value #THREAD_NAME} (a {@link StepLoop}):
 * what to do is decided by {@link DriverStep}; this class owns what the step cannot: the timers,
 * the wall clock and the edges the actions act on ({@link DriverEdges}). The methods other threads call only enqueue; every trigger comes
 * with a sweep of the sockets, so that a trigger needs no payload.
 */
final class DriverLoop {

    static final String THREAD_NAME = "vfio-dra";
    /** Stopping both servers takes up to 2 s each (a graceful shutdown, then a forced one). */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final DraSettings settings;
    private final DraListener listener;
    private final StepLoop<DriverState, DriverEvent, DriverAction> loop;
    private final DriverEdges edges;

    // Confined to the loop thread.
    // applied states waiting for the slices they imply to be written (or to fail)
    private final List<CompletableFuture<Void>> slicesWritten = new ArrayList<>();

    /**
     * Starts the thread and its timers, then sweeps the sockets (so serving starts at once).
     *
     * @param ticker the step's monotonic time (backoffs, wake-ups)
     * @param clock  the wall time of the health list's stamps
     * @param edges  makes what the actions act on; its services hand their work to this loop
     */
    DriverLoop(DraSettings settings, Ticker ticker, Clock clock, DraListener listener, Function<DriverLoop, DriverEdges> edges) {
        this.settings = settings;
        this.listener = listener;
        DriverStep step = new DriverStep(settings);
        this.loop = new StepLoop<>(THREAD_NAME, log, DriverState.initial(ticker.nanos()),
                (state, events, nanos) -> step.next(state, events, new Now(nanos, clock.instant())), ticker,
                this::sweep, this::execute, nanos -> slicesSettled());
        this.edges = edges.apply(this);
        loop.sweepEvery(settings.safetySweep());
        loop.every(settings.healthHeartbeat(), new DriverEvent.Heartbeat());
        loop.every(settings.sliceResync(), new DriverEvent.ResyncSlices());
        requestSweep();
    }

    /** The view gRPC handlers read right now. */
    DriverView view() {
        return loop.state().view();
    }

    /**
     * Offer {@code next}'s DRA part, {@code view}, from now on. The answer completes once the slices
     * it implies are written, or their write failed (at once when closed).
     */
    CompletableFuture<Void> apply(TargetState next, DriverView view) {
        CompletableFuture<Void> takenIn = new CompletableFuture<>();
        if (!loop.submit(() -> {
            slicesWritten.add(takenIn);
            loop.feed(new DriverEvent.TargetChanged(next, view));
        })) {
            takenIn.complete(null);
        }
        return takenIn;
    }

    /** Sweep the sockets again; cheap and coalesced, call it on any hint. */
    void requestSweep() {
        loop.requestSweep();
    }

    /** The kubelet's plugin watcher's verdict on our registration. */
    void registered(RegistrationStatus status) {
        loop.submit(() -> loop.feed(new DriverEvent.RegistrationVerdict(status.getPluginRegistered(), status.getError())));
    }

    /** The driver's standing, answered after everything enqueued before; {@code preparedClaims} counts the claims then. */
    CompletableFuture<DraStatus> status(IntSupplier preparedClaims) {
        CompletableFuture<DraStatus> f = new CompletableFuture<>();
        if (!loop.submit(() -> f.complete(loop.state().status(settings.driverName(), preparedClaims.getAsInt())))) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    /** After a feed: the applied states whose slices are written (or failed, or the driver closed) are taken in. */
    private void slicesSettled() {
        DriverState state = loop.state();
        if (!slicesWritten.isEmpty() && (state.closed() || !state.slices().wanted() && !state.slices().inFlight())) {
            slicesWritten.forEach(f -> f.complete(null));
            slicesWritten.clear();
        }
    }

    /** A sweep of the sockets, made on the driver's thread with each event. */
    private DriverEvent sweep() {
        return new DriverEvent.Swept(edges.gone());
    }

    private void execute(DriverAction action, Consumer<DriverEvent> outcome) {
        switch (action) {
            case StartServer s -> outcome.accept(edges.start(s));
            case StopServer s -> edges.stop(s.generation());
            case SendHealth h -> edges.sendHealth(h.list());
            case SyncSlices s -> edges.sync(s, loop::offerOutcome);
            case ProbeTaints p -> edges.probe(p, loop::offerOutcome);
            case NotifyHealthChanged h -> listener.healthChanged(h.resource(), h.deviceId(), h.from(), h.to());
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    /** Stops both servers (removing their sockets), the publisher and the thread. Idempotent. */
    void close() {
        loop.close(new DriverEvent.Close(), () -> {
            slicesWritten.forEach(f -> f.complete(null));
            edges.close();
        }, CLOSE_WAIT);
    }
}
