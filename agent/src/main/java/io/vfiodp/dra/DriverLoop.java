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
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that changes the driver's state, {@value #THREAD_NAME}: what to do is decided
 * by {@link DriverStep}; this class owns what the step cannot: the thread, the timers, the clocks,
 * the edges the actions act on ({@link DriverEdges}) and the kubelet's calls waiting for their
 * answers. Every outcome is fed back to the step before anything else runs. The methods other
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
    private final Map<Long, CompletableFuture<Map<String, PrepareAnswer>>> prepares = new HashMap<>();
    private final Map<Long, CompletableFuture<Map<String, Optional<String>>>> unprepares = new HashMap<>();
    private long calls;
    private ScheduledFuture<?> wakeUp;
    // applied states waiting for the slices they imply to be written (or to fail)
    private final List<CompletableFuture<Void>> slicesWritten = new ArrayList<>();

    /**
     * Starts the thread and its timers, then looks at the sockets (so serving starts at once).
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
        this.step = new DriverStep(settings);
        this.ticker = ticker;
        this.clock = clock;
        this.listener = listener;
        this.state = DriverState.initial(claims, lost, ticker.nanos());
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

    /** Whether claim {@code uid} was prepared as of the last step: then the API need not be asked. */
    boolean isPrepared(String uid) {
        return state.claims().containsKey(uid);
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
            feedWithLook(new DriverEvent.TargetChanged(next));
        })) {
            takenIn.complete(null);
        }
        return takenIn;
    }

    /** The devices prepared claims hold (and a call in progress may), as of the last step. */
    Set<String> heldDevices() {
        return state.heldDevices();
    }

    /** Why the book may lack claims the kubelet still has prepared (the checkpoint was lost), as of the last step; empty when it does not. */
    Optional<String> lost() {
        return state.lost().map(LostClaims::reason);
    }

    /** The claims in the book as {@code namespace/name}, as of the last step. */
    Set<String> bookNames() {
        Set<String> out = new java.util.HashSet<>();
        state.claims().values().forEach(c -> out.add(c.namespace() + "/" + c.name()));
        return out;
    }

    /** What the kubelet still has prepared, while the checkpoint is lost: claims it names are rebuilt. */
    void kubeletClaimsRead(DriverEvent.KubeletClaimsRead read) {
        enqueue(() -> feedWithLook(read));
    }

    /** Look at the sockets again; cheap and coalesced, call it on any hint. */
    void requestCheck() {
        checkSoon.fire();
    }

    /** The kubelet's plugin watcher's verdict on our registration. */
    void registered(RegistrationStatus status) {
        enqueue(() -> feedWithLook(new DriverEvent.RegistrationVerdict(status.getPluginRegistered(), status.getError())));
    }

    /** Prepares {@code requests}: by claim UID, the answer, once the checkpoint holds what changed. */
    CompletableFuture<Map<String, PrepareAnswer>> prepare(List<ClaimRequest> requests) {
        CompletableFuture<Map<String, PrepareAnswer>> answer = new CompletableFuture<>();
        if (!enqueue(() -> {
            long call = ++calls;
            prepares.put(call, answer);
            feedWithLook(new DriverEvent.PrepareRequested(call, requests));
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
            feedWithLook(new DriverEvent.UnprepareRequested(call, refs));
        })) {
            answer.completeExceptionally(new IllegalStateException("the DRA driver is shutting down"));
        }
        return answer;
    }

    /** The driver's standing, answered after everything enqueued before. */
    CompletableFuture<DraStatus> status() {
        CompletableFuture<DraStatus> f = new CompletableFuture<>();
        if (!enqueue(() -> f.complete(state.status(settings.driverName())))) {
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
            case WriteFiles w -> outcomes.add(List.of(edges.write(w)));
            case RemoveFiles r -> outcomes.add(List.of(edges.remove(r)));
            case SaveCheckpoint s -> outcomes.add(List.of(edges.save(s)));
            case AnswerPrepare a -> Optional.ofNullable(prepares.remove(a.call())).ifPresent(f -> f.complete(a.answers()));
            case AnswerUnprepare a -> Optional.ofNullable(unprepares.remove(a.call())).ifPresent(f -> f.complete(a.errors()));
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    /** Answers the calls still open, stops both servers (removing their sockets), the publisher and the thread. Idempotent. */
    void close() {
        thread.closeAfter(() -> {
            if (state.closed()) return;
            if (wakeUp != null) wakeUp.cancel(false);
            try {
                feed(List.of(new DriverEvent.Close()));
            } finally {
                IllegalStateException closing = new IllegalStateException("the DRA driver is shutting down");
                prepares.values().forEach(f -> f.completeExceptionally(closing));
                unprepares.values().forEach(f -> f.completeExceptionally(closing));
                slicesWritten.forEach(f -> f.complete(null));
                edges.close();
            }
        }, CLOSE_WAIT);
    }
}
