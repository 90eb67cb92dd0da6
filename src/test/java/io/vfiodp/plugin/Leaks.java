package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a test started and did not clean up. The waits here and in {@link ProcessLevels} are one
 * kind: Awaitility polling an assertion every {@link #POLL}, failing with the last assertion's
 * message (what was still there). Waits that count threads poll in the test's own thread, so
 * that Awaitility's poller is not counted.
 */
public final class Leaks {

    static final Duration POLL = Duration.ofMillis(50);

    private Leaks() {}

    public static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    /** Names of the threads alive now that were not in {@code before}. */
    static List<String> threadsStartedSince(Set<Thread> before) {
        return liveThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
    }

    /**
     * Waits up to {@code grace} until every thread alive now was in {@code before} (grpc releases
     * its shared timer a second after its last user); fails naming those still alive.
     */
    public static void awaitNoThreadStartedSince(Set<Thread> before, Duration grace) {
        await("threads started since the test began to end").atMost(grace).pollInterval(POLL).pollInSameThread()
                .untilAsserted(() -> assertThat(threadsStartedSince(before).stream().filter(n -> !isFabric8Scheduler(n)))
                        .as("threads still alive that were not before").isEmpty());
        await("fabric8's shared scheduler to end").atMost(FABRIC8_SCHEDULER_LIFE).pollInterval(POLL).pollInSameThread()
                .untilAsserted(() -> assertThat(threadsStartedSince(before)).as("threads still alive that were not before").isEmpty());
    }

    /*
     * fabric8's client schedules its informers' and watches' timers on one scheduler per JVM
     * (CachedSingleThreadScheduler), which nobody closes: its thread ends itself at the first of its
     * 10-second checks that finds no task queued, so 10 to 20 s after a client's last timer.
     */
    private static final Duration FABRIC8_SCHEDULER_LIFE = Duration.ofSeconds(25);

    private static boolean isFabric8Scheduler(String threadName) {
        return threadName.startsWith("CachedSingleThreadScheduler-");
    }

    static List<String> sockets(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")).sorted().toList();
        }
    }

    /** Waits up to {@code timeout} until the socket names in {@code dir} are exactly {@code expected}; fails with those there last. */
    static void awaitSockets(Path dir, List<String> expected, Duration timeout) {
        await("sockets in " + dir).atMost(timeout).pollInterval(POLL)
                .untilAsserted(() -> assertThat(sockets(dir)).as("sockets in %s", dir).isEqualTo(expected));
    }
}
