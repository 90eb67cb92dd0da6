package io.vfiodp.bench;

import java.time.Duration;
import java.util.Objects;

/**
 * One row of the soak table: the plugin process as sampled at {@code elapsed}, and how much load
 * had been applied by then.
 *
 * @param rssMiB        VmRSS from {@code /proc/PID/status}
 * @param heapMiB       Java heap in use right after a full GC the sampler asked for
 * @param metaspaceMiB  metaspace in use
 * @param threads       {@code Threads:} from {@code /proc/PID/status}: Java and JVM-internal threads
 * @param fds           entries in {@code /proc/PID/fd}
 */
record SoakSample(Duration elapsed, double rssMiB, double heapMiB, double metaspaceMiB, int threads, int fds,
                  long allocations, long restarts, long flaps) {

    SoakSample {
        Objects.requireNonNull(elapsed, "elapsed");
        if (elapsed.isNegative()) throw new IllegalArgumentException("elapsed " + elapsed + " is negative");
        if (rssMiB < 0 || heapMiB < 0 || metaspaceMiB < 0 || threads < 0 || fds < 0) {
            throw new IllegalArgumentException("a sampled figure is negative: " + this);
        }
        if (allocations < 0 || restarts < 0 || flaps < 0) throw new IllegalArgumentException("a load counter is negative: " + this);
    }

    double minutes() {
        return elapsed.toMillis() / 60_000.0;
    }
}
