package io.vfiodp.bench;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Drops a directory's files from the page cache, so that every plugin under comparison maps its
 * files as a node first reads them from disk. Why it matters: how a file came into the cache
 * decides the size of its cached folios, and with them how much of it the kernel maps around each
 * page fault. An image the build has just written (the jar by {@code jar}, the AOT cache by the
 * JVM) showed a higher VmHWM than the same files read back from disk, an image built a day earlier
 * none (docs/benchmarks.md, "`serve`: start-up, Allocate, memory").
 */
final class PageCache {

    private static final int O_RDONLY = 0;
    private static final int POSIX_FADV_DONTNEED = 4;

    interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int posix_fadvise(int fd, long offset, long length, int advice);

        int close(int fd) throws LastErrorException;
    }

    private PageCache() {}

    /** The number of regular files under {@code dir} whose cached pages were dropped (dirty pages are written first). */
    static int evict(Path dir) throws IOException {
        LibC libc = Native.load("c", LibC.class);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).toList();
        }
        int evicted = 0;
        for (Path file : files) {
            int fd = libc.open(file.toString(), O_RDONLY);
            try {
                // DONTNEED drops clean pages only: write dirty ones first
                try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ)) {
                    channel.force(false);
                }
                if (libc.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) evicted++;
            } finally {
                libc.close(fd);
            }
        }
        return evicted;
    }
}
