package io.vfiodp.triggers;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One named daemon thread that runs tasks in order, now or later: the plugin's every background
 * activity runs on one of these, so each has a name in a thread dump and one way to end. Tasks
 * submitted after {@link #close()} are dropped ({@link #offer} says so); delayed tasks do not
 * outlive it.
 */
public final class Worker implements Executor, AutoCloseable {

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private final String name;
    private final ScheduledThreadPoolExecutor executor;
    // the executor's thread (a new one should a task kill it): close waits for each to end
    private final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

    private Worker(String name) {
        this.name = name;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            threads.add(t);
            return t;
        });
        // a cancelled wake-up must not stay queued for hours (the rescan period), and nothing runs after close
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    public static Worker start(String name) {
        return new Worker(name);
    }

    public String name() {
        return name;
    }

    /** Runs {@code task} on this worker; throws {@link RejectedExecutionException} once closed. */
    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /** Runs {@code task} on this worker unless it is closed; false when it is. */
    public boolean offer(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} every {@code period}, the first time one period from now; a run that fails stops nothing. */
    public ScheduledFuture<?> every(Duration period, Runnable task) {
        return executor.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(Worker.class).warn("{}: periodic task failed: {}", name, e.toString());
            }
        }, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code last} after what is queued, waits up to {@code wait} for it, then {@link #close()}s:
     * a loop's final step (stop its servers, mark it closed) runs on its own thread and is not
     * interrupted half-way. False, with a log line, when {@code last} failed or did not end in time.
     */
    public boolean closeAfter(Runnable last, Duration wait) {
        try {
            CompletableFuture.runAsync(last, executor).get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            // closed before: nothing runs any more
            return true;
        } catch (ExecutionException | TimeoutException e) {
            org.slf4j.LoggerFactory.getLogger(Worker.class).warn("{}: its last task before closing {}", name,
                    e instanceof TimeoutException ? "did not end within " + wait.toMillis() + " ms" : "failed: " + e.getCause());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            close();
        }
    }

    /**
     * Interrupts what runs, drops what waits, and waits briefly for the thread to end: the
     * executor counts as terminated once its last task returned, a moment before its thread is
     * gone, so the thread itself is joined too. Idempotent.
     */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            for (Thread t = threads.poll(); t != null; t = threads.poll()) {
                if (t != Thread.currentThread()) t.join(CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
