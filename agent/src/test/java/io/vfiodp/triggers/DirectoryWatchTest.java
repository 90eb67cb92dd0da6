package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.triggers.DirectoryWatch.Change;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one directory watch: what it reports of a directory that is there, comes later, goes and comes back. */
class DirectoryWatchTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String THREAD = "test-dir-watch";

    @TempDir Path parent;
    private final BlockingQueue<Change> changes = new LinkedBlockingQueue<>();

    private Change next() throws InterruptedException {
        Change c = changes.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(c).as("a change reported within " + WAIT).isNotNull();
        return c;
    }

    private DirectoryWatch watch(Path dir) throws IOException {
        return DirectoryWatch.start(dir, "test dir", THREAD, changes::add);
    }

    @Test
    void entriesCreatedAndDeletedAreReportedByName() throws Exception {
        Path dir = Files.createDirectories(parent.resolve("vfio"));
        try (DirectoryWatch w = watch(dir)) {
            Files.createFile(dir.resolve("12"));
            assertThat(next()).isEqualTo(new Change.Entries(Set.of("12"), Set.of(), false));

            Files.delete(dir.resolve("12"));

            assertThat(next()).isEqualTo(new Change.Entries(Set.of(), Set.of("12"), false));
        }
    }

    @Test
    void aDirectoryThatAppearsLaterIsWatchedOnceItIsReportedThere() throws Exception {
        Path dir = parent.resolve("vfio");
        try (DirectoryWatch w = watch(dir)) {
            Files.createDirectories(dir);
            // reported only once it is watched: an entry created from now on cannot be missed
            assertThat(next()).isEqualTo(new Change.Appeared());

            Files.createFile(dir.resolve("7"));

            assertThat(next()).isEqualTo(new Change.Entries(Set.of("7"), Set.of(), false));
        }
    }

    @Test
    void otherEntriesOfTheParentAreNotReported() throws Exception {
        Path dir = parent.resolve("vfio");
        try (DirectoryWatch w = watch(dir)) {
            Files.createFile(parent.resolve("null"));
            // the directory itself, created after, is the first thing reported
            Files.createDirectories(dir);

            assertThat(next()).isEqualTo(new Change.Appeared());
        }
    }

    @Test
    void aRemovedDirectoryIsReportedGoneAndWatchedAgainWhenItIsBack() throws Exception {
        Path dir = Files.createDirectories(parent.resolve("device-plugins"));
        try (DirectoryWatch w = watch(dir)) {
            Files.delete(dir);
            assertThat(next()).isEqualTo(new Change.Vanished());

            Files.createDirectories(dir);
            assertThat(next()).isEqualTo(new Change.Appeared());
            Files.createFile(dir.resolve("kubelet.sock"));

            assertThat(next()).isEqualTo(new Change.Entries(Set.of("kubelet.sock"), Set.of(), false));
        }
    }

    @Test
    void aDirectoryWithoutParentCannotBeWatched() {
        assertThatThrownBy(() -> watch(parent.resolve("missing/vfio")))
                .hasMessageStartingWith("cannot watch test dir " + parent.resolve("missing/vfio") + " or its parent: ");
    }

    @Test
    void closeEndsTheWatchThread() throws Exception {
        DirectoryWatch w = watch(parent);

        w.close();

        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(THREAD) && t.isAlive());
    }
}
