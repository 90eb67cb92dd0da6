package io.vfiodp.node;

import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's passes: the first on the calling thread, every later one on one thread,
 * {@value #PASS_THREAD}: when asked ({@link #rescanNow()}), at the periodic full rescan, and soon
 * after a pass that leaves something only another pass settles (a departed device, a device
 * waiting for a side to let go of it). Each pass reads the {@link NodeStateSource} and hands the
 * state to the {@link NodeSide}s in their order; a pass that fails keeps the previous state.
 * {@link #close()} ends the thread; the sides are closed by whoever started them.
 */
public final class NodeLoop implements AutoCloseable {

    /** The pass thread's name. */
    public static final String PASS_THREAD = "vfio-dp-rescan";
    /** How long a device the host took away stays listed as Unhealthy at most (see {@link #keepDepartedFor}). */
    public static final Duration DEPARTED_KEPT = Duration.ofSeconds(30);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.node");

    /** The sides a pass hands its state to, in order; opened once the first state is read, so a side may start meanwhile. */
    @FunctionalInterface
    public interface Sides {
        List<NodeSide> open() throws IOException;
    }

    private final NodeStateSource source;
    private final List<NodeSide> sides;
    private final Worker passes;
    private final CoalescingTrigger passSoon;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    // the periodic full rescan; replaced by rescanEvery
    private ScheduledFuture<?> periodic;
    private Duration period;
    private volatile Duration departedKept = DEPARTED_KEPT;
    // the pass that drops departed devices, when the periodic one is further away; the pass thread's alone
    private ScheduledFuture<?> departuresPass;

    private NodeLoop(NodeStateSource source, List<NodeSide> sides, Worker passes) {
        this.source = source;
        this.sides = List.copyOf(sides);
        this.passes = passes;
        this.passSoon = new CoalescingTrigger(passes, () -> pass(source::read));
    }

    /**
     * Reads the first state on the calling thread (so a bad configuration fails here, loudly),
     * opens the sides and hands it to them, then passes every {@code rescanEvery}, reading the
     * whole host ({@link NodeStateSource#readFully()}). When it throws, closing what the sides'
     * opener started is the caller's.
     */
    public static NodeLoop start(NodeStateSource source, Sides sides, Duration rescanEvery) throws IOException {
        TargetState first = source.read();
        List<NodeSide> opened = sides.open();
        for (NodeSide side : opened) side.apply(first);
        NodeLoop loop = new NodeLoop(source, opened, Worker.start(PASS_THREAD));
        loop.rescanEvery(rescanEvery);
        return loop;
    }

    /**
     * Passes soon, on the pass thread, instead of waiting for the next period. Calls while a pass
     * is queued join it: a burst of file events costs one scan after the one in flight, never a
     * pile of them behind a slow sysfs.
     */
    public void rescanNow() {
        if (!closed.get()) passSoon.fire();
    }

    /**
     * From now on, the periodic full rescan runs every {@code period}, the first one {@code period}
     * from now: serve lengthens it while kernel uevents arrive and shortens it when they stop.
     */
    public synchronized void rescanEvery(Duration period) {
        if (closed.get()) return;
        if (periodic != null) periodic.cancel(false);
        try {
            periodic = passes.every(period, () -> pass(source::readFully));
            this.period = period;
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed meanwhile: nothing to rescan for
        }
    }

    /**
     * Runs {@code task} on the pass thread, after the passes queued there; dropped once closed.
     * The first pass's state is with the sides by the time {@link #start} returns, so work that
     * follows from it waits for no kubelet call.
     */
    public void onPassThread(Runnable task) {
        passes.offer(task);
    }

    private void pass(java.util.function.Supplier<TargetState> read) {
        try {
            TargetState state = read.get();
            for (NodeSide side : sides) side.apply(state);
            if (source.wantsAnotherPass()) dropDepartedLater();
        } catch (RuntimeException e) {
            log.warn("rescan failed, keeping the previous state: {}", e.getMessage());
        }
    }

    /**
     * A device the host took away is listed once more as Unhealthy, with the reason, and dropped by
     * the next pass. With the full rescan every 30 s that was at most 30 s; under kernel uevents the
     * next pass may be minutes away, so one is asked for after {@code kept} (the periodic rescan
     * does it when it comes sooner). Meanwhile the kubelet allocates nothing from it, and an
     * Allocate naming it is told why.
     */
    public void keepDepartedFor(Duration kept) {
        if (kept.isNegative() || kept.isZero()) throw new IllegalArgumentException("departed devices kept for a non-positive time: " + kept);
        departedKept = kept;
    }

    private void dropDepartedLater() {
        Duration kept = departedKept;
        Duration every;
        synchronized (this) {
            every = period;
        }
        if (every != null && every.compareTo(kept) <= 0 || departuresPass != null && !departuresPass.isDone()) return;
        try {
            departuresPass = passes.schedule(() -> pass(source::read), kept);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed meanwhile: nothing to drop
        }
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        done.await();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            passes.close();
        } finally {
            done.countDown();
        }
    }
}
