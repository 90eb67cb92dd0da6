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
     * its shared timer a second after its last user), but those that {@linkplain #endsByItself end by
     * themselves}; fails naming those still alive.
     */
    public static void awaitNoThreadStartedSince(Set<Thread> before, Duration grace) {
        await("threads started since the test began to end").atMost(grace).pollInterval(POLL).pollInSameThread()
                .untilAsserted(() -> assertThat(threadsStartedSince(before).stream().filter(n -> !endsByItself(n)))
                        .as("threads still alive that were not before").isEmpty());
    }

    /**
     * Whether a thread of this name belongs to the JVM or a library rather than to what a test
     * started, is shared by everything in the JVM, cannot be closed, and ends on its own timer: no
     * leak check waits for it. Each is a sign of a leak only together with what keeps it busy, which
     * the checks see by itself (a connection's file descriptor, a client's own threads).
     * <ul>
     *   <li>{@code Keep-Alive-Timer}: the JDK's cache of idle HttpURLConnection connections, 5 to 10 s
     *       after the last one;</li>
     *   <li>{@code process reaper}: the JDK's pooled thread that waits for child processes, 60 s
     *       after the last;</li>
     *   <li>{@code CachedSingleThreadScheduler-*}: fabric8's one scheduler per JVM for every client's
     *       request timeouts and watch timers ({@code Utils.schedule}); it has no public close, and
     *       ends at the first of its 10-second checks that finds nothing queued, 10 to 20 s after a
     *       client's last request.</li>
     * </ul>
     */
    public static boolean endsByItself(String threadName) {
        return threadName.equals("Keep-Alive-Timer") || threadName.equals("process reaper")
                || threadName.startsWith("CachedSingleThreadScheduler-");
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
