package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * What this JVM holds, read from the kernel: live Java threads (by name), open file descriptors
 * ({@code /proc/self/fd}) and inotify watches ({@code inotify wd:} lines in
 * {@code /proc/self/fdinfo/*}: one per directory a {@code WatchService} watches).
 */
public record ProcessLevels(List<String> threads, int fds, int inotifyWatches) {

    private static final Path FD = Path.of("/proc/self/fd");
    private static final Path FDINFO = Path.of("/proc/self/fdinfo");

    public static ProcessLevels now() {
        return new ProcessLevels(Leaks.liveThreads().stream().map(Thread::getName).sorted().toList(), count(FD), readInotifyWatches());
    }

    /**
     * Waits up to {@code timeout} until this JVM holds no more than {@code base}: no thread whose
     * name {@code base} did not have (but those that {@linkplain Leaks#endsByItself end by
     * themselves}), no more file descriptors, no more inotify watches. Returns the reading that got
     * there; fails with what was still above it.
     */
    public static ProcessLevels awaitBackTo(ProcessLevels base, Duration timeout) {
        AtomicReference<ProcessLevels> last = new AtomicReference<>();
        await("back to the level of " + base).atMost(timeout).pollInterval(Leaks.POLL).pollInSameThread().untilAsserted(() -> {
            ProcessLevels now = now();
            last.set(now);
            now.assertNotAbove(base);
        });
        return last.get();
    }

    private void assertNotAbove(ProcessLevels base) {
        List<String> extra = threadsBeyond(base).stream().filter(n -> !Leaks.endsByItself(n)).toList();
        assertThat(extra).as("threads beyond the level before").isEmpty();
        assertThat(threads.stream().filter(n -> !Leaks.endsByItself(n)).count()).as("live threads")
                .isLessThanOrEqualTo(base.threads.stream().filter(n -> !Leaks.endsByItself(n)).count());
        assertThat(fds).as("open file descriptors").isLessThanOrEqualTo(base.fds);
        assertThat(inotifyWatches).as("inotify watches").isLessThanOrEqualTo(base.inotifyWatches);
    }

    /** Threads alive now that {@code base} did not have, by name (a name counts as often as threads carry it). */
    public List<String> threadsBeyond(ProcessLevels base) {
        List<String> extra = new java.util.ArrayList<>(threads);
        for (String n : base.threads) extra.remove(n);
        return extra;
    }

    @Override
    public String toString() {
        return threads.size() + " threads, " + fds + " fds, " + inotifyWatches + " inotify watches";
    }

    private static int count(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return (int) s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int readInotifyWatches() {
        return inotifyWatchLines().size();
    }

    /**
     * How many of this JVM's inotify watches are on {@code dir} (matched by inode and device, as
     * {@code /proc/self/fdinfo} names them): shows which directory a {@code WatchService} watches.
     */
    public static int inotifyWatchesOn(Path dir) {
        long ino;
        long dev;
        try {
            ino = (Long) Files.getAttribute(dir, "unix:ino");
            dev = (Long) Files.getAttribute(dir, "unix:dev");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // fdinfo prints the kernel's dev_t (major << 20 | minor); stat gives glibc's encoding.
        long major = (dev >>> 8) & 0xfff | (dev >>> 32) & 0xfffff000L;
        long minor = dev & 0xff | (dev >>> 12) & 0xffffff00L;
        String wanted = " ino:" + Long.toHexString(ino) + " sdev:" + Long.toHexString(major << 20 | minor) + " ";
        return (int) inotifyWatchLines().stream().filter(l -> l.contains(wanted)).count();
    }

    private static List<String> inotifyWatchLines() {
        List<String> watches = new java.util.ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDINFO)) {
            for (Path fd : fds) {
                try {
                    for (String line : Files.readAllLines(fd)) if (line.startsWith("inotify wd:")) watches.add(line);
                } catch (NoSuchFileException e) {
                    // closed while we listed
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return watches;
    }
}
