package io.vfiodp.serve;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What has been started, to be closed in reverse order: on a failure half-way through start-up
 * and at SIGTERM alike, so that both leave no thread, socket, watch or mdev client behind.
 */
final class Closer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Closer.class);

    private final Deque<AutoCloseable> started = new ArrayDeque<>();

    /** Registers {@code c} to be closed before everything registered earlier; returns it. */
    synchronized <T extends AutoCloseable> T add(T c) {
        started.push(c);
        return c;
    }

    /** Closes everything, last started first; a failure is logged and the rest still close. Idempotent. */
    @Override
    public void close() {
        while (true) {
            AutoCloseable next;
            synchronized (this) {
                next = started.poll();
            }
            if (next == null) return;
            try {
                next.close();
            } catch (Exception e) {
                if (e instanceof InterruptedException) Thread.currentThread().interrupt();
                log.warn("shutdown of {} failed: {}", next.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
