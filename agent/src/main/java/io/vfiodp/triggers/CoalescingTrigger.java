package io.vfiodp.triggers;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action on an executor when fired, once for any number of fires that come while it waits
 * to run: a burst of file events costs one pass after the one in flight, never a pile of them
 * behind a slow sysfs. A fire during the run queues one more run, so no change is missed.
 */
public final class CoalescingTrigger {

    private final Executor executor;
    private final Runnable action;
    private final AtomicBoolean queued = new AtomicBoolean();

    public CoalescingTrigger(Executor executor, Runnable action) {
        this.executor = executor;
        this.action = action;
    }

    /** Asks for a run; cheap, from any thread. Does nothing once the executor rejects work (closed). */
    public void fire() {
        if (!queued.compareAndSet(false, true)) return;
        try {
            executor.execute(() -> {
                queued.set(false);
                action.run();
            });
        } catch (RejectedExecutionException e) {
            queued.set(false);
        }
    }
}
