package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.AnswerPrepare;
import io.vfiodp.dra.DriverAction.AnswerUnprepare;
import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.DriverAction.WakeAt;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.kubelet.StepLoop;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.triggers.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that changes the driver's state, {@value #THREAD_NAME} (a {@link StepLoop}):
 * what to do is decided by {@link DriverStep}; this class owns what the step cannot: the timers,
 * the wall clock, the edges the actions act on ({@link DriverEdges}) and the kubelet's calls
 * waiting for their answers. The methods other threads call only enqueue; every trigger comes
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
    private final Map<Long, CompletableFuture<Map<String, PrepareAnswer>>> prepares = new HashMap<>();
    private final Map<Long, CompletableFuture<Map<String, Optional<String>>>> unprepares = new HashMap<>();
    private long calls;
    // applied states waiting for the slices they imply to be written (or to fail)
    private final List<CompletableFuture<Void>> slicesWritten = new ArrayList<>();

    /**
     * Starts the thread and its timers, then sweeps the sockets (so serving starts at once).
     *
     * @param claims the claims the checkpoint recorded
     * @param lost   when the checkpoint was lost: then {@code claims} may not be all the kubelet has prepared
     * @param ticker the step's monotonic time (backoffs, wake-ups)
     * @param clock  the wall time of the health list's stamps
     * @param edges  makes what the actions act on; its services hand their work to this loop
     */
    DriverLoop(DraSettings settings, SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost, Ticker ticker, Clock clock,
               DraListener listener, Function<DriverLoop, DriverEdges> edges) {
        this.settings = settings;
        this.listener = listener;
        DriverStep step = new DriverStep(settings);
        this.loop = new StepLoop<>(THREAD_NAME, log, DriverState.initial(claims, lost, ticker.nanos()),
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

    /** Whether claim {@code uid} was prepared as of the last step: then the API need not be asked. */
    boolean isPrepared(String uid) {
        return loop.state().claims().containsKey(uid);
    }

    DraListener listener() {
        return listener;
    }

    /**
     * Offer {@code next}'s DRA part from now on. The answer completes once prepares are decided on
     * it and the slices it implies are written, or their write failed (at once when closed).
     */
    CompletableFuture<Void> apply(TargetState next) {
        CompletableFuture<Void> takenIn = new CompletableFuture<>();
        if (!enqueue(() -> {
            slicesWritten.add(takenIn);
            loop.feed(new DriverEvent.TargetChanged(next));
        })) {
            takenIn.complete(null);
        }
        return takenIn;
    }

    /** The devices prepared claims hold (and a call in progress may), as of the last step. */
    Set<String> heldDevices() {
        return loop.state().heldDevices();
    }

    /** Why the book may lack claims the kubelet still has prepared (the checkpoint was lost), as of the last step; empty when it does not. */
    Optional<String> lost() {
        return loop.state().lost().map(LostClaims::reason);
    }

    /** The claims in the book as {@code namespace/name}, as of the last step. */
    Set<String> bookNames() {
        Set<String> out = new java.util.HashSet<>();
        loop.state().claims().values().forEach(c -> out.add(c.namespace() + "/" + c.name()));
        return out;
    }

    /** What the kubelet still has prepared, while the checkpoint is lost: claims it names are rebuilt. */
    void kubeletClaimsRead(DriverEvent.KubeletClaimsRead read) {
        enqueue(() -> loop.feed(read));
    }

    /** Sweep the sockets again; cheap and coalesced, call it on any hint. */
    void requestSweep() {
        loop.requestSweep();
    }

    /** The kubelet's plugin watcher's verdict on our registration. */
    void registered(RegistrationStatus status) {
        enqueue(() -> loop.feed(new DriverEvent.RegistrationVerdict(status.getPluginRegistered(), status.getError())));
    }

    /** Prepares {@code requests}: by claim UID, the answer, once the checkpoint holds what changed. */
    CompletableFuture<Map<String, PrepareAnswer>> prepare(List<ClaimRequest> requests) {
        CompletableFuture<Map<String, PrepareAnswer>> answer = new CompletableFuture<>();
        if (!enqueue(() -> {
            long call = ++calls;
            prepares.put(call, answer);
            loop.feed(new DriverEvent.PrepareRequested(call, requests));
        })) {
            answer.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return answer;
    }

    /** Unprepares {@code refs}: by claim UID, its error, empty when it is unprepared. */
    CompletableFuture<Map<String, Optional<String>>> unprepare(List<ClaimRef> refs) {
        CompletableFuture<Map<String, Optional<String>>> answer = new CompletableFuture<>();
        if (!enqueue(() -> {
            long call = ++calls;
            unprepares.put(call, answer);
            loop.feed(new DriverEvent.UnprepareRequested(call, refs));
        })) {
            answer.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return answer;
    }

    /** The driver's standing, answered after everything enqueued before. */
    CompletableFuture<DraStatus> status() {
        CompletableFuture<DraStatus> f = new CompletableFuture<>();
        if (!enqueue(() -> f.complete(loop.state().status(settings.driverName())))) {
            f.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return f;
    }

    private boolean enqueue(Runnable task) {
        return loop.submit(task);
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
            case WakeAt w -> loop.wakeAt(w.nanos());
            case SendHealth h -> edges.sendHealth(h.list());
            case SyncSlices s -> edges.sync(s, loop::offerOutcome);
            case ProbeTaints p -> edges.probe(p, loop::offerOutcome);
            case NotifyHealthChanged h -> listener.healthChanged(h.resource(), h.deviceId(), h.from(), h.to());
            case WriteFiles w -> outcome.accept(edges.write(w));
            case RemoveFiles r -> outcome.accept(edges.remove(r));
            case SaveCheckpoint s -> outcome.accept(edges.save(s));
            case AnswerPrepare a -> Optional.ofNullable(prepares.remove(a.call())).ifPresent(f -> f.complete(a.answers()));
            case AnswerUnprepare a -> Optional.ofNullable(unprepares.remove(a.call())).ifPresent(f -> f.complete(a.errors()));
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    /** Answers the calls still open, stops both servers (removing their sockets), the publisher and the thread. Idempotent. */
    void close() {
        loop.close(new DriverEvent.Close(), () -> {
            IllegalStateException closing = new IllegalStateException("the DRA driver is shutting down");
            prepares.values().forEach(f -> f.completeExceptionally(closing));
            unprepares.values().forEach(f -> f.completeExceptionally(closing));
            slicesWritten.forEach(f -> f.complete(null));
            edges.close();
        }, CLOSE_WAIT);
    }
}
