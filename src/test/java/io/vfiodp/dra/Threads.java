package io.vfiodp.dra;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Threads a test started and did not end. */
final class Threads {

    private Threads() {}

    static Set<Thread> live() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    /** Names starting with {@code prefix} of threads alive now that were not in {@code before}, once none is left or after {@code grace}. */
    static List<String> startedSince(Set<Thread> before, String prefix, Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            List<String> extra = live().stream().filter(t -> !before.contains(t)).map(Thread::getName).filter(n -> n.startsWith(prefix))
                    .sorted().toList();
            if (extra.isEmpty() || System.nanoTime() > deadline) return extra;
            Thread.sleep(50);
        }
    }
}
