package io.vfiodp.host.scan;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A fixture node copied into a fresh directory and corrupted there:
 * <pre>
 *   &lt;area&gt;/node/{sys,dev}   the corrupted copy, the scanner's roots
 *   &lt;area&gt;/twin/{sys,dev}   an intact copy: what links leading out of the roots point at
 * </pre>
 * Anything the scan opens in {@code <area>} outside {@code node/} it found by leaving its roots.
 */
final class CorruptedNode implements AutoCloseable {

    private final Path area;
    private final List<TreeCorruption> applied;

    private CorruptedNode(Path area, List<TreeCorruption> applied) {
        this.area = area;
        this.applied = List.copyOf(applied);
    }

    static CorruptedNode of(String fixture, List<TreeCorruption> corruptions) throws IOException {
        Path area = Files.createTempDirectory(scratch(), "corrupted-" + fixture + "-");
        Path committed = SysfsFixtures.committedRoot().resolve(fixture);
        Trees.copy(committed, area.resolve("node"));
        Trees.copy(committed, area.resolve("twin"));
        List<TreeCorruption> applied = new ArrayList<>();
        for (TreeCorruption c : corruptions) {
            if (c.applyTo(area.resolve("node"), area.resolve("twin"))) applied.add(c);
        }
        return new CorruptedNode(area, applied);
    }

    /**
     * tmpfs when the machine has one at /dev/shm: a try copies two trees of some hundred
     * entries, about 25 times faster there than on a journalling disk (and sysfs lives in
     * memory too). The system's temporary directory otherwise.
     */
    private static Path scratch() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) return shm;
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    Path area() {
        return area;
    }

    Path node() {
        return area.resolve("node");
    }

    Path sys() {
        return node().resolve("sys");
    }

    Path dev() {
        return node().resolve("dev");
    }

    /** The corruptions that found their entry (a later one may find it gone). */
    List<TreeCorruption> applied() {
        return applied;
    }

    /** Regular files in the roots: the most files a scan can read. */
    long regularFiles() throws IOException {
        long[] count = {0};
        Files.walkFileTree(node(), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) count[0]++;
                return FileVisitResult.CONTINUE;
            }
        });
        return count[0];
    }

    @Override
    public void close() throws IOException {
        for (TreeCorruption c : applied) {
            Path p = node().resolve(c.path());
            // a later corruption may have put a link in its place: that one is not ours to chmod
            if (c.kind() == TreeCorruption.Kind.PERMISSION_DENIED && !Files.isSymbolicLink(p) && Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
            }
        }
        Trees.deleteRecursively(area);
    }
}
