package io.vfiodp.plugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    /** Polls until the levels are no higher than {@code base} or {@code timeout} passed; returns the last reading. */
    public static ProcessLevels onceBackTo(ProcessLevels base, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ProcessLevels now = now();
            if (now.notAbove(base) || System.nanoTime() > deadline) return now;
            Thread.sleep(50);
        }
    }

    boolean notAbove(ProcessLevels base) {
        return threads.size() <= base.threads.size() && fds <= base.fds && inotifyWatches <= base.inotifyWatches;
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
        int watches = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDINFO)) {
            for (Path fd : fds) {
                try {
                    for (String line : Files.readAllLines(fd)) if (line.startsWith("inotify wd:")) watches++;
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
