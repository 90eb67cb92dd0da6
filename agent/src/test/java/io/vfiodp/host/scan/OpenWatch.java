package io.vfiodp.host.scan;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tells which files and directories under some trees were opened or read, by anyone, while it
 * watched: the kernel's inotify ({@code IN_OPEN}, {@code IN_ACCESS}) on every directory of the
 * trees. Listing a directory opens it and reading a file opens it, so a scan that strays into
 * a watched tree cannot go unseen; only {@code lstat} and {@code readlink}, which read no
 * content, leave no trace.
 */
public final class OpenWatch implements AutoCloseable {

    private static final int IN_ACCESS = 0x1;
    private static final int IN_OPEN = 0x20;
    private static final int IN_Q_OVERFLOW = 0x4000;
    private static final int IN_IGNORED = 0x8000;
    private static final int IN_ONLYDIR = 0x01000000;
    private static final int IN_DONT_FOLLOW = 0x02000000;
    private static final int IN_NONBLOCK = 04000;
    private static final int IN_CLOEXEC = 02000000;
    private static final int EAGAIN = 11;

    interface LibC extends Library {
        int inotify_init1(int flags) throws LastErrorException;

        int inotify_add_watch(int fd, String path, int mask) throws LastErrorException;

        NativeLong read(int fd, byte[] buffer, NativeLong count) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private final LibC libc;
    private final int fd;
    private final Map<Integer, Path> watched = new HashMap<>();
    private final Set<Path> skip;

    private OpenWatch(LibC libc, int fd, Set<Path> skip) {
        this.libc = libc;
        this.fd = fd;
        this.skip = Set.copyOf(skip);
    }

    /** Watches every directory below each of {@code trees} (links not followed), except below {@code skip}. */
    public static OpenWatch of(List<Path> trees, Set<Path> skip) throws IOException {
        LibC libc = Native.load("c", LibC.class);
        OpenWatch watch = new OpenWatch(libc, libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC), skip);
        try {
            for (Path tree : trees) {
                Files.walkFileTree(tree, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        if (skip.contains(dir)) return FileVisitResult.SKIP_SUBTREE;
                        int wd = libc.inotify_add_watch(watch.fd, dir.toString(), IN_OPEN | IN_ACCESS | IN_ONLYDIR | IN_DONT_FOLLOW);
                        watch.watched.put(wd, dir);
                        return FileVisitResult.CONTINUE;
                    }
                });
            }
        } catch (IOException | RuntimeException e) {
            watch.close();
            throw e;
        }
        watch.drain(); // listing the trees to add the watches opened them
        return watch;
    }

    /** Every open or read seen since the last call, as {@code <path> opened|read}. */
    public List<String> drain() {
        List<String> seen = new ArrayList<>();
        byte[] buffer = new byte[64 * 1024];
        while (true) {
            int n;
            try {
                n = libc.read(fd, buffer, new NativeLong(buffer.length)).intValue();
            } catch (LastErrorException e) {
                if (e.getErrorCode() == EAGAIN) return seen;
                throw e;
            }
            ByteBuffer events = ByteBuffer.wrap(buffer, 0, n).order(ByteOrder.nativeOrder());
            while (events.remaining() >= 16) {
                int wd = events.getInt();
                int mask = events.getInt();
                events.getInt(); // cookie: only rename events carry one
                int length = events.getInt();
                byte[] name = new byte[length];
                events.get(name);
                if ((mask & IN_IGNORED) != 0) continue;
                if ((mask & IN_Q_OVERFLOW) != 0) {
                    seen.add("(inotify queue overflowed: events lost)");
                    continue;
                }
                Path dir = watched.get(wd);
                String entry = new String(name, StandardCharsets.UTF_8).replace("\0", "");
                Path path = entry.isEmpty() ? dir : dir.resolve(entry);
                // a skipped directory still shows up in its watched parent when opened
                if (skip.contains(path)) continue;
                seen.add(path + ((mask & IN_ACCESS) != 0 ? " read" : " opened"));
            }
        }
    }

    @Override
    public void close() {
        libc.close(fd);
    }
}
