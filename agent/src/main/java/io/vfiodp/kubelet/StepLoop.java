package io.vfiodp.kubelet;

import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The one thread that changes a side's state, around its pure {@link Step} (the device plugins'
 * reconcile loop, the DRA driver's loop). Each event comes with a sweep of the side's sockets, so
 * that the step decides on fresh observations and a trigger needs no payload; the actions run in
 * order, and the outcomes they give at once are fed back before anything else runs. Each step
 * replaces the wake-up asked before ({@link Step.Result#wakeAt}, on the injected {@link Ticker}). Other
 * threads only enqueue, and read the state as it was after a step.
 */
public final class StepLoop<S, E, A> {

    /** Carries out one action on the loop's thread; an outcome known at once goes to {@code outcome}. */
    @FunctionalInterface
    public interface Actions<A, E> {
        void execute(A action, Consumer<E> outcome);
    }

    private final Logger log;
    private final Step<S, E, A> step;
    private final Ticker ticker;
    private final Supplier<E> sweep;
    private final Actions<A, E> actions;
    private final LongConsumer fed;
    private final Worker thread;
    private final CoalescingTrigger sweepSoon;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile S state;
    private ScheduledFuture<?> wakeUp; // confined to the loop's thread

    /**
     * Starts the thread ({@code threadName}, also the prefix of the loop's log lines); nothing runs
     * until something is enqueued. {@code sweep} is made on the loop's thread with each event;
     * {@code fed} is told, after each feed but the closing one, how many nanoseconds it took.
     */
    public StepLoop(String threadName, Logger log, S initial, Step<S, E, A> step, Ticker ticker, Supplier<E> sweep, Actions<A, E> actions,
                    LongConsumer fed) {
        this.log = log;
        this.state = initial;
        this.step = step;
        this.ticker = ticker;
        this.sweep = sweep;
        this.actions = actions;
        this.fed = fed;
        this.thread = Worker.start(threadName);
        this.sweepSoon = new CoalescingTrigger(thread, guarded(() -> feed(null)));
    }

    /** The state after the last step. */
    public S state() {
        return state;
    }

    /** Runs {@code task} on the loop's thread (a failure is logged, the state kept); false once closed. */
    public boolean submit(Runnable task) {
        return thread.offer(guarded(task));
    }

    /** The loop's thread as an executor: a {@code RejectedExecutionException} once closed. */
    public Executor executor() {
        return thread;
    }

    /** Feeds {@code event} with a sweep; false once closed. */
    public boolean offer(E event) {
        return submit(() -> feed(event));
    }

    /** Feeds the outcome of an action that completed elsewhere, without a sweep; false once closed. */
    public boolean offerOutcome(E outcome) {
        return submit(() -> {
            long start = ticker.nanos();
            run(List.of(outcome));
            fed.accept(ticker.nanos() - start);
        });
    }

    /** Sweeps soon: cheap and coalesced, from any thread. */
    public void requestSweep() {
        sweepSoon.fire();
    }

    public void sweepEvery(Duration period) {
        thread.every(period, this::requestSweep);
    }

    /** Feeds {@code event}, with a sweep, every {@code period}. */
    public void every(Duration period, E event) {
        thread.every(period, guarded(() -> feed(event)));
    }

    /** On the loop's thread: steps on {@code event} (none when null) with a sweep made now, then on the outcomes until none is left. */
    public void feed(E event) {
        long start = ticker.nanos();
        E swept = sweep.get();
        run(event == null ? List.of(swept) : List.of(event, swept));
        fed.accept(ticker.nanos() - start);
    }

    private void run(List<E> first) {
        Queue<List<E>> events = new ArrayDeque<>(List.of(first));
        while (!events.isEmpty()) {
            Step.Result<S, A> result = step.next(state, events.remove(), ticker.nanos());
            state = result.state();
            if (wakeUp != null) wakeUp.cancel(false);
            wakeUp = result.wakeAt().map(at -> thread.schedule(this::requestSweep, Duration.ofNanos(at - ticker.nanos()))).orElse(null);
            for (A action : result.actions()) {
                try {
                    actions.execute(action, outcome -> events.add(List.of(outcome)));
                } catch (RuntimeException e) {
                    // The state already counts on the rest: one action that fails must not skip them.
                    log.error("{}: action {} failed", thread.name(), action.getClass().getSimpleName(), e);
                }
            }
        }
    }

    private Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("{}: step failed; the state is kept and the next sweep tries again", thread.name(), e);
            }
        };
    }

    /**
     * Steps on {@code close} after what is queued, then runs {@code after} (also when the step
     * failed), waits up to {@code wait} for both and ends the thread. A second call returns at once.
     */
    public void close(E close, Runnable after, Duration wait) {
        if (!closing.compareAndSet(false, true)) return;
        thread.closeAfter(() -> {
            if (wakeUp != null) wakeUp.cancel(false);
            try {
                run(List.of(close));
            } finally {
                after.run();
            }
        }, wait);
    }
}
