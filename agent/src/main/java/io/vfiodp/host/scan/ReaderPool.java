package io.vfiodp.host.scan;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The threads a long-lived {@link SysfsScanner} reads a large host's devices on, started once and
 * parked between scans: starting them again for every 30 s rescan cost more wake-ups than the
 * rescan's reads. Whoever owns the scanner owns the pool and closes it after the last scan; after
 * {@link #close()} no reader thread is alive.
 */
public final class ReaderPool implements AutoCloseable {

    private final int threads;
    private final ExecutorService executor;
    private final List<Thread> created = new ArrayList<>();

    private ReaderPool(int threads) {
        this.threads = threads;
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "sysfs-scan-" + count.incrementAndGet());
            t.setDaemon(true);
            synchronized (created) {
                created.add(t);
            }
            return t;
        };
        this.executor = Executors.newFixedThreadPool(threads, factory);
    }

    /** A pool of {@code threads} readers (at least 2: one reader is the scanning thread itself). */
    public static ReaderPool start(int threads) {
        if (threads < 2) throw new IllegalArgumentException("a reader pool needs at least 2 threads, was " + threads);
        return new ReaderPool(threads);
    }

    /** Two readers up to four, one per CPU. */
    public static ReaderPool forThisMachine() {
        return start(Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors())));
    }

    /**
     * Applies {@code read} to every item, in order, in chunks on the pool. {@code read} must not
     * throw checked exceptions; an unexpected runtime exception is a bug in this package and
     * propagates.
     */
    <T, R> List<R> map(List<T> items, Function<T, R> read) {
        int chunks = threads * 4;
        int chunkSize = (items.size() + chunks - 1) / chunks;
        List<Future<List<R>>> parts = new ArrayList<>(chunks);
        for (int from = 0; from < items.size(); from += chunkSize) {
            List<T> slice = items.subList(from, Math.min(items.size(), from + chunkSize));
            parts.add(executor.submit(() -> SysfsScanner.mapInOrder(slice, read)));
        }
        List<R> results = new ArrayList<>(items.size());
        try {
            for (Future<List<R>> part : parts) results.addAll(part.get());
        } catch (InterruptedException e) {
            parts.forEach(p -> p.cancel(true));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("scan interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        }
        return results;
    }

    /** Stops the readers and returns once none of them is alive. */
    @Override
    public void close() {
        executor.close();
        List<Thread> all;
        synchronized (created) {
            all = List.copyOf(created);
        }
        boolean interrupted = false;
        for (Thread t : all) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
