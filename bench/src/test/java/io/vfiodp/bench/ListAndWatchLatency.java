package io.vfiodp.bench;

import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** How long a change on the host takes to reach the kubelet's ListAndWatch stream, and the figures of many such runs. */
public final class ListAndWatchLatency {

    private ListAndWatchLatency() {}

    /** A change made on the host (a fake kernel's, a fixture tree's). */
    public interface Change {
        void run() throws Exception;
    }

    /** Nanoseconds from the start of {@code change} to the first message after it that {@code match} accepts. */
    public static long timed(Watch w, Change change, Predicate<ListAndWatchResponse> match, Duration wait) throws Exception {
        int before = w.updates().size();
        AtomicInteger index = new AtomicInteger();
        long start = System.nanoTime();
        change.run();
        // Watch wakes its waiters on every message, so the time is the message's arrival (not a poll's)
        w.awaitUpdate(u -> index.getAndIncrement() >= before && match.test(u), wait);
        return System.nanoTime() - start;
    }

    /** Where {@link #print} also appends every value, for ServeBench's {@link EventBenches}: a file named by this system property. */
    static final String RAW_PROPERTY = "vfiodp.bench.raw";

    /**
     * One line: p50, p90 and max of {@code nanos} in milliseconds, and how many; and, when the system
     * property {@value #RAW_PROPERTY} names a file, a line {@code WHAT<TAB>NANOS,NANOS,...} appended to it.
     */
    public static void print(String what, List<Long> nanos) throws IOException {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        System.out.printf(Locale.ROOT, "  %-72s p50 %8.2f ms  p90 %8.2f ms  max %8.2f ms  (n=%d)%n", what,
                sorted.get(sorted.size() / 2) / 1e6, sorted.get((int) (sorted.size() * 0.9)) / 1e6, sorted.getLast() / 1e6, sorted.size());
        String raw = System.getProperty(RAW_PROPERTY);
        if (raw != null) {
            Files.writeString(Path.of(raw), what + "\t" + nanos.stream().map(String::valueOf).collect(Collectors.joining(",")) + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }
}
