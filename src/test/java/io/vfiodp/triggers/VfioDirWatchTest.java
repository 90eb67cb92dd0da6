package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VfioDirWatchTest {

    @TempDir Path dev;
    private final Semaphore changes = new Semaphore(0);

    @Test
    void groupNodeCreatedAndRemovedEachTriggerTheCallback() throws Exception {
        Files.createDirectories(dev.resolve("vfio"));
        try (VfioDirWatch w = VfioDirWatch.start(dev, changes::release)) {
            Files.createFile(dev.resolve("vfio/12"));
            assertThat(changes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            changes.drainPermits();

            Files.delete(dev.resolve("vfio/12"));

            assertThat(changes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void vfioDirectoryThatAppearsLaterIsWatchedToo() throws Exception {
        try (VfioDirWatch w = VfioDirWatch.start(dev, changes::release)) {
            Files.createDirectories(dev.resolve("vfio"));
            assertThat(changes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(100);
            changes.drainPermits();

            Files.createFile(dev.resolve("vfio/7"));

            assertThat(changes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void unrelatedEntriesInDevAreIgnored() throws Exception {
        try (VfioDirWatch w = VfioDirWatch.start(dev, changes::release)) {
            Files.createFile(dev.resolve("null"));

            assertThat(changes.tryAcquire(300, TimeUnit.MILLISECONDS)).isFalse();
        }
    }

    @Test
    void closeEndsTheWatchThread() throws Exception {
        VfioDirWatch w = VfioDirWatch.start(dev, changes::release);

        w.close();

        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(VfioDirWatch.THREAD_NAME) && t.isAlive());
    }
}
