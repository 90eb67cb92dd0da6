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
 * The one thread that changes a side's state, around its pure {@link Step}: the device plugins'
 * reconcile loop and the DRA driver's loop are each one. An event comes with a sweep (a look at
 * the side's sockets, as the side makes it), so that the step always decides on fresh
 * observations and a trigger needs no payload; the step's actions are carried out in order, and
 * the outcomes they give at once are fed back before anything else runs. A side asks to be woken
 * at a time on the injected {@link Ticker} ({@link #wakeAt}); each step cancels the wake-up asked
 * before. Other threads only enqueue; they read the state as it was after a step, never a
 * half-made one. {@link #close} runs the closing event as the last step and ends the thread.
 *
 * @param <S> the side's state
 * @param <E> its events
 * @param <A> its actions
 */
public final class StepLoop<S, E, A> {

    /**
     * Carries out one action on the loop's thread; an outcome known at once goes to
     * {@code outcome}, and is fed back before anything else runs.
     */
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

    // Written by the loop's thread only, after each step.
    private volatile S state;
    // Confined to the loop's thread.
    private ScheduledFuture<?> wakeUp;

    /**
     * Starts the thread; nothing runs until something is enqueued.
     *
     * @param threadName the thread's name, also the prefix of the loop's log lines
     * @param sweep      makes the sweep that goes with every event, on the loop's thread
     * @param actions    carries out the step's actions
     * @param fed        told, after each feed but the closing one, how many nanoseconds it took, the sweep included
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

    /** Runs {@code task} on the loop's thread (a failure logged, the state kept); false once the loop is closed. */
    public boolean submit(Runnable task) {
        return thread.offer(guarded(task));
    }

    /** Runs tasks on the loop's thread, as they come; a {@code RejectedExecutionException} once the loop is closed. */
    public Executor executor() {
        return thread;
    }

    /** Feeds {@code event} with a sweep, on the loop's thread; false once the loop is closed. */
    public boolean offer(E event) {
        return submit(() -> feed(event));
    }

    /** Feeds the outcome of an action that completes elsewhere, on the loop's thread, without a sweep; false once closed. */
    public boolean offerOutcome(E outcome) {
        return submit(() -> {
            long start = ticker.nanos();
            run(List.of(outcome));
            fed.accept(ticker.nanos() - start);
        });
    }

    /** Sweeps soon; cheap and coalesced (one sweep for a burst of calls), from any thread. */
    public void requestSweep() {
        sweepSoon.fire();
    }

    /** Sweeps every {@code period}, whatever else happens. */
    public void sweepEvery(Duration period) {
        thread.every(period, this::requestSweep);
    }

    /** Feeds {@code event}, with a sweep, every {@code period}. */
    public void every(Duration period, E event) {
        thread.every(period, guarded(() -> feed(event)));
    }

    /** From an action, on the loop's thread: sweep at {@code nanos} on the ticker, unless a later step asks again. */
    public void wakeAt(long nanos) {
        wakeUp = thread.schedule(this::requestSweep, Duration.ofNanos(nanos - ticker.nanos()));
    }

    /**
     * On the loop's thread: runs the step on {@code event} (none when null) and the sweep made
     * now, then on the outcomes until none is left.
     */
    public void feed(E event) {
        long start = ticker.nanos();
        E look = sweep.get();
        run(event == null ? List.of(look) : List.of(event, look));
        fed.accept(ticker.nanos() - start);
    }

    private void run(List<E> first) {
        Queue<List<E>> events = new ArrayDeque<>(List.of(first));
        while (!events.isEmpty()) {
            Step.Result<S, A> result = step.next(state, events.remove(), ticker.nanos());
            state = result.state();
            if (wakeUp != null) wakeUp.cancel(false);
            wakeUp = null;
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
     * Runs {@code close} as the last step, after what is queued, then {@code after} (also when the
     * step failed), waits up to {@code wait} for both, and ends the thread; no wake-up outlives it.
     * Idempotent: a second call returns at once.
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
