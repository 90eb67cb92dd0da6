package io.vfiodp.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What a test started and did not clean up. */
public final class Leaks {

    private Leaks() {}

    public static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    /**
     * Threads alive now that were not in {@code before}, after giving them {@code grace} to end:
     * grpc releases its shared timer a second after its last user.
     */
    public static List<String> threadsStartedSince(Set<Thread> before, Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            List<String> extra = liveThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
            if (extra.isEmpty() || System.nanoTime() > deadline) return extra;
            Thread.sleep(50);
        }
    }

    static List<String> sockets(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")).sorted().toList();
        }
    }

    /** The socket names in {@code dir} once they equal {@code expected}, or as they are after {@code timeout}. */
    static List<String> socketsOnceEqual(Path dir, List<String> expected, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> now = sockets(dir);
            if (now.equals(expected) || System.nanoTime() > deadline) return now;
            Thread.sleep(20);
        }
    }
}
