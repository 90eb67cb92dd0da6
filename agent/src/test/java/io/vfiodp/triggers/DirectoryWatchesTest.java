package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vfiodp.triggers.DirectoryWatch.Change;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several directory watches on one WatchService: one thread of ours and one of the JDK's for all, each watch told only its own changes. */
class DirectoryWatchesTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String THREAD = "test-dir-watches";
    /** The thread the JDK runs for each WatchService on Linux. */
    private static final String JDK_POLLER = "FileSystemWatchService";

    @TempDir Path root;
    private final BlockingQueue<Change> first = new LinkedBlockingQueue<>();
    private final BlockingQueue<Change> second = new LinkedBlockingQueue<>();

    private static Change next(BlockingQueue<Change> changes) throws InterruptedException {
        Change c = changes.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(c).as("a change reported within " + WAIT).isNotNull();
        return c;
    }

    private static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    private static List<String> startedSince(Set<Thread> before) {
        return liveThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
    }

    @Test
    void twoDirectoriesAreWatchedOnOneThreadAndOneWatchService() throws Exception {
        Path devPlugins = Files.createDirectories(root.resolve("device-plugins"));
        Path vfio = Files.createDirectories(root.resolve("vfio"));
        Set<Thread> before = liveThreads();
        try (DirectoryWatches watches = DirectoryWatches.start(THREAD);
             DirectoryWatch a = watches.watch(devPlugins, "device-plugin dir", first::add);
             DirectoryWatch b = watches.watch(vfio, "/dev/vfio dir", second::add)) {
            Files.createFile(vfio.resolve("12"));
            Files.createFile(devPlugins.resolve("kubelet.sock"));

            assertThat(next(second)).isEqualTo(new Change.Entries(Set.of("12"), Set.of(), false));
            assertThat(next(first)).isEqualTo(new Change.Entries(Set.of("kubelet.sock"), Set.of(), false));
            assertThat(startedSince(before)).containsExactly(JDK_POLLER, THREAD);
        }
    }

    @Test
    void aDirectoryOneWatchWaitsInIsAnotherWatchsDirectoryAndBothAreTold() throws Exception {
        Path plugins = Files.createDirectories(root.resolve("plugins"));
        try (DirectoryWatches watches = DirectoryWatches.start(THREAD);
             DirectoryWatch waiting = watches.watch(plugins.resolve("driver"), "DRA plugin dir", second::add);
             DirectoryWatch parent = watches.watch(plugins, "plugins dir", first::add)) {
            Files.createDirectories(plugins.resolve("driver"));

            assertThat(next(first)).isEqualTo(new Change.Entries(Set.of("driver"), Set.of(), false));
            assertThat(next(second)).isEqualTo(new Change.Appeared());
            Files.createFile(plugins.resolve("driver/dra.sock"));
            assertThat(next(second)).isEqualTo(new Change.Entries(Set.of("dra.sock"), Set.of(), false));
            // the parent's watch saw the directory come, not what is created inside it
            Files.createFile(plugins.resolve("registry.sock"));
            assertThat(next(first)).isEqualTo(new Change.Entries(Set.of("registry.sock"), Set.of(), false));
        }
    }

    @Test
    void aClosedWatchIsNotToldAgainAndTheKeyItSharedStaysWithTheOther() throws Exception {
        Path plugins = Files.createDirectories(root.resolve("plugins"));
        try (DirectoryWatches watches = DirectoryWatches.start(THREAD)) {
            // first on the list: when still there, it would be told before the other of the same event
            DirectoryWatch waiting = watches.watch(plugins.resolve("driver"), "DRA plugin dir", second::add);
            try (DirectoryWatch parent = watches.watch(plugins, "plugins dir", first::add)) {
                waiting.close();

                Files.createDirectories(plugins.resolve("driver"));

                assertThat(next(first)).isEqualTo(new Change.Entries(Set.of("driver"), Set.of(), false));
                assertThat(second).isEmpty();
            }
        }
    }

    @Test
    void closeEndsItsThreadAndTheJdksPoller() throws Exception {
        Path dir = Files.createDirectories(root.resolve("vfio"));
        Set<Thread> before = liveThreads();
        DirectoryWatches watches = DirectoryWatches.start(THREAD);
        watches.watch(dir, "/dev/vfio dir", first::add);

        watches.close();

        // the JDK's poller ends on its own once it has handled the close
        await("threads of the watches to end").atMost(WAIT).pollInSameThread().untilAsserted(() -> assertThat(startedSince(before)).isEmpty());
    }

    @Test
    void nothingCanBeWatchedOnceClosed() throws Exception {
        DirectoryWatches watches = DirectoryWatches.start(THREAD);
        watches.close();

        assertThatThrownBy(() -> watches.watch(root, "test dir", first::add))
                .hasMessage("cannot watch test dir " + root + ": the directory watches are closed");
    }
}
