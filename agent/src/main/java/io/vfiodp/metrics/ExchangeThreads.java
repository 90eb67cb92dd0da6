package io.vfiodp.metrics;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK HTTP server's executor: each exchange (reading a request's headers, answering it) on a
 * thread of its own, made when the request arrives and ended with it, at most {@code max} at once.
 * The server's worker reads the headers with a blocking read, so a client that sends half a request
 * holds its worker until {@link HttpServerLimits}' request time closes the connection; with one
 * worker, as before, one such client held every probe. Past {@code max} an exchange is refused, and
 * the server closes that connection at once: the threads, and the heap each exchange holds, stay
 * bounded. Platform threads, not virtual ones: the server reads inside {@code synchronized} methods,
 * which on JDK 21 pins a virtual thread to its carrier, so a few half-sent requests would stall all
 * of them.
 */
final class ExchangeThreads implements Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.metrics");
    /** How long close waits for an exchange still running: a probe waits for the loops up to 2 s. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final int max;
    private final ThreadFactory threads;
    private final Semaphore free;
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();
    /** Connections refused since the last time nothing was in progress; a warning at the first, a line when it is over. */
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean closed;

    ExchangeThreads(String name, int max) {
        this.max = max;
        this.threads = Thread.ofPlatform().name(name + "-", 1).daemon(true).factory();
        this.free = new Semaphore(max);
    }

    @Override
    public void execute(Runnable exchange) {
        if (closed) throw new RejectedExecutionException("the metrics server is closed");
        if (!free.tryAcquire()) {
            if (refused.getAndIncrement() == 0) {
                log.warn("{} HTTP requests in progress at once: new connections to the metrics port are closed until they end"
                        + " (a client holding requests open? docs/monitoring.md, \"The port\")", max);
            }
            throw new RejectedExecutionException(max + " exchanges in progress");
        }
        started.removeIf(t -> !t.isAlive());
        Thread t = threads.newThread(() -> {
            try {
                exchange.run();
            } finally {
                free.release();
                if (free.availablePermits() == max) {
                    long n = refused.getAndSet(0);
                    if (n > 0) log.info("no HTTP request in progress any more; {} connection(s) were refused meanwhile", n);
                }
            }
        });
        started.add(t);
        t.start();
    }

    /** Refuses new exchanges and waits for those still running, which end once the server has closed their connections. */
    @Override
    public void close() {
        closed = true;
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        for (Thread t : started) {
            try {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
