package io.vfiodp.host.scan;

import io.vfiodp.host.FileKind;
import io.vfiodp.host.RegularFile;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A directory tree (the one that plays {@code /sys} or {@code /dev}) read without ever leaving
 * it. Symbolic links are resolved here, one hop at a time, instead of by the kernel: a target
 * that climbs above the root, is absolute, dangles, or loops is reported for the entry that
 * holds the link, and nothing outside the root is ever opened or even looked at.
 *
 * <p>Paths handed out are absolute and real (no symbolic link in any component), so files in
 * them can be opened with {@code O_NOFOLLOW} on the last component only. Directories already
 * proven real are remembered for the life of this object, which keeps a scan to about one
 * {@code lstat} per device: sysfs link targets share almost all of their components. Paths are
 * plain strings because a scan handles tens of thousands of them and {@link Path} parsing and
 * hashing dominated its cost. Safe for concurrent use.
 */
final class ConfinedTree {

    /** The kernel's own limit (MAXSYMLINKS); a sysfs path never needs more than a handful. */
    static final int MAX_LINK_HOPS = 40;
    /** The file systems of a kernel's trees: they hold no FIFO, socket or device node a read could block on. */
    private static final Set<String> KERNEL_FILE_SYSTEMS = Set.of("sysfs", "proc");
    private static final OpenOption[] READ_NO_FOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
    private final String root;
    private final boolean kernelTree;
    /** Sized for a large host (thousands of devices, bridges and groups) so it never rehashes mid-scan. */
    private final Set<String> realDirectories = ConcurrentHashMap.newKeySet(8192);

    private ConfinedTree(String realRoot, boolean kernelTree) {
        this.root = realRoot;
        this.kernelTree = kernelTree;
        realDirectories.add(realRoot);
    }

    /** Opens the tree at {@code root}, each file's type checked before it is opened; the root itself may be reached through links. */
    static ConfinedTree open(Path root) throws IOException {
        return open(root, false);
    }

    /**
     * Opens the tree at {@code root}; {@code kernelTree} ({@link #isKernelTree}) when it is a
     * sysfs or procfs mount, whose files are opened without looking at their type first.
     */
    static ConfinedTree open(Path root, boolean kernelTree) throws IOException {
        Path real = root.toRealPath();
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) throw new NotDirectoryException(root.toString());
        return new ConfinedTree(real.toString(), kernelTree);
    }

    /**
     * Whether {@code root} is a sysfs or procfs mount. The JDK finds a path's file system in the
     * mount table, a millisecond or so: callers that open the same root again and again ask once.
     */
    static boolean isKernelTree(Path root) {
        try {
            return KERNEL_FILE_SYSTEMS.contains(Files.getFileStore(root).type());
        } catch (IOException e) {
            return false;
        }
    }

    String root() {
        return root;
    }

    /** The path as problems name it: relative to the root, {@code .} for the root itself. */
    String shown(String path) {
        if (path.equals(root)) return ".";
        return path.startsWith(root + "/") ? path.substring(root.length() + 1) : path;
    }

    static String child(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    static String fileName(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /**
     * The entry {@code name} of the real directory {@code dir}, with any link resolved inside
     * the root; {@code shownAs} names it in problems.
     */
    String entry(String dir, String name, String shownAs) throws EntryUnreadable {
        return resolve(dir, name, shownAs);
    }

    /**
     * The target of {@code name} in the real directory {@code dir}, which is expected to be a
     * symbolic link (sysfs's {@code driver}, {@code iommu_group}, {@code bus/pci/devices/X}
     * ...), as a real directory inside the root. Reads the link straight away instead of
     * {@code lstat}ing it first; anything else falls back to {@link #directory}.
     */
    String linkedDirectory(String dir, String name, String shownAs) throws EntryUnreadable {
        String link = child(dir, name);
        String target;
        try {
            target = Files.readSymbolicLink(Path.of(link)).toString();
        } catch (IOException e) {
            return directory(dir, name, shownAs);
        }
        String resolved = lexicalTarget(dir, target);
        if (resolved != null) {
            if (realDirectories.contains(resolved)) return resolved;
            String parent = parent(resolved);
            if (realDirectories.contains(parent)) return directory(parent, fileName(resolved), shownAs, 1);
        }
        return directory(dir, name, shownAs);
    }

    /**
     * {@code dir} joined with a link target of the plain sysfs shape (leading {@code ..}
     * components, then names), or null for any other shape or a target above the root. Only
     * leading {@code ..} can be applied lexically: {@code dir} is real, the names are not yet.
     */
    private String lexicalTarget(String dir, String target) {
        if (target.isEmpty() || target.charAt(0) == '/') return null;
        int baseEnd = dir.length();
        int i = 0;
        while (target.startsWith("../", i)) {
            if (baseEnd == root.length()) return null;
            baseEnd = dir.lastIndexOf('/', baseEnd - 1);
            i += 3;
        }
        if (i == target.length() || target.charAt(target.length() - 1) == '/') return null;
        for (int start = i; start < target.length(); ) {
            int end = target.indexOf('/', start);
            if (end < 0) end = target.length();
            int len = end - start;
            if (len == 0 || (len == 1 && target.charAt(start) == '.')
                    || (len == 2 && target.charAt(start) == '.' && target.charAt(start + 1) == '.')) {
                return null;
            }
            start = end + 1;
        }
        return dir.substring(0, baseEnd) + "/" + target.substring(i);
    }

    /** As {@link #entry}, but empty when no such entry exists (not even as a link). */
    Optional<String> optionalEntry(String dir, String name, String shownAs) throws EntryUnreadable {
        String candidate = child(dir, name);
        if (realDirectories.contains(candidate)) return Optional.of(candidate);
        if (!Files.exists(Path.of(candidate), LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        return Optional.of(entry(dir, name, shownAs));
    }

    /** Like {@link #entry} and the result must be a directory. */
    String directory(String dir, String name, String shownAs) throws EntryUnreadable {
        return directory(dir, name, shownAs, 0);
    }

    private String directory(String dir, String name, String shownAs, int hopsSoFar) throws EntryUnreadable {
        String target = resolve(dir, name, shownAs, hopsSoFar);
        if (!realDirectories.contains(target)) {
            throw new EntryUnreadable(shownAs, "not a directory (resolves to " + shown(target) + ")");
        }
        return target;
    }

    /** Walks a relative path such as {@code kernel/iommu_groups}, resolving links in the root. */
    String walk(String relative) throws EntryUnreadable {
        return resolve(root, relative, relative);
    }

    /** Names in a real directory, unsorted. */
    String[] list(String dir) throws EntryUnreadable {
        // java.io.File lists with opendir/readdir and no per-entry Path objects; dir is real,
        // so following links here cannot happen.
        String[] names = new File(dir).list();
        if (names != null) return names;
        Path p = Path.of(dir);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) throw EntryUnreadable.missing(shown(dir));
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) throw new EntryUnreadable(shown(dir), "not a directory");
        throw new EntryUnreadable(shown(dir), "cannot list directory");
    }

    /**
     * Reads an attribute file of a real directory: at most {@value AttributeFile#MAX_BYTES} bytes,
     * strict UTF-8, surrounding whitespace removed, not empty.
     */
    String attribute(String dir, String name, String shownAs) throws EntryUnreadable {
        String value = rawAttribute(dir, name, shownAs).strip();
        if (value.isEmpty()) throw new EntryUnreadable(shownAs, "empty");
        return value;
    }

    /** The attribute's text as stored (not stripped), possibly empty; same limits otherwise. */
    String rawAttribute(String dir, String name, String shownAs) throws EntryUnreadable {
        return AttributeFile.read(this, child(dir, name), shownAs);
    }

    /** As {@link #rawAttribute} but empty when the file does not exist. */
    Optional<String> optionalRawAttribute(String dir, String name, String shownAs) throws EntryUnreadable {
        try {
            return Optional.of(rawAttribute(dir, name, shownAs));
        } catch (EntryUnreadable e) {
            if (e.isMissing()) return Optional.empty();
            throw e;
        }
    }

    /**
     * Opens the real file {@code path} for reading, not through a link, when it is a regular file:
     * every reader of the tree's files opens them here, so none can block on a FIFO (or a socket, a
     * device) in a file's place ({@link RegularFile}). A kernel's own tree (sysfs, procfs) cannot
     * hold one, so there the file is opened without the extra {@code lstat}: a scan reads thousands
     * of files, and that system call would cost it about a fifth (docs/benchmarks.md, "Host scan").
     * {@code what} says what the file should be ({@code an attribute file}) in the problem that
     * names anything else.
     */
    FileChannel openFile(String path, String shownAs, String what) throws EntryUnreadable {
        Path file = Path.of(path);
        try {
            return kernelTree ? FileChannel.open(file, READ_NO_FOLLOW) : RegularFile.open(file, false);
        } catch (NoSuchFileException e) {
            throw EntryUnreadable.missing(shownAs);
        } catch (RegularFile.NotRegular e) {
            throw new EntryUnreadable(shownAs, "is " + e.kind().words() + ", not " + what);
        } catch (IOException e) {
            // on a kernel's tree, what failed the open: a link or a directory where a file was to be read
            FileKind kind;
            try {
                kind = FileKind.of(file, false);
            } catch (IOException notThere) {
                kind = FileKind.REGULAR;
            }
            if (kind != FileKind.REGULAR) throw new EntryUnreadable(shownAs, "is " + kind.words() + ", not " + what);
            throw new EntryUnreadable(shownAs, "cannot read: " + describe(e));
        }
    }

    /** True when {@code name} in {@code dir} is a char device or a regular file (not followed). */
    boolean isDeviceNode(String dir, String name) {
        try {
            int mode = (Integer) Files.getAttribute(Path.of(child(dir, name)), "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int type = mode & 0170000;
            return type == 0020000 || type == 0100000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * Resolves the relative path {@code relative} starting at the real directory {@code start}.
     * Every component is checked with {@code lstat} unless already proven real; links are read
     * and their targets pushed in front of the remaining components, so nested links and links
     * in the middle of a target are handled alike.
     */
    private String resolve(String start, String relative, String shownAs) throws EntryUnreadable {
        return resolve(start, relative, shownAs, 0);
    }

    private String resolve(String start, String relative, String shownAs, int hopsSoFar) throws EntryUnreadable {
        Deque<String> pending = new ArrayDeque<>(8);
        pushFront(pending, relative);
        String current = start;
        int hops = hopsSoFar;
        while (!pending.isEmpty()) {
            String part = pending.pollFirst();
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                // current is real, so its lexical parent is its true parent
                if (current.equals(root)) throw new EntryUnreadable(shownAs, "link leads outside the scanned root");
                current = parent(current);
                continue;
            }
            String next = child(current, part);
            if (realDirectories.contains(next)) {
                current = next;
                continue;
            }
            Path nextPath = Path.of(next);
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(nextPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                if (hops == 0) throw EntryUnreadable.missing(shownAs);
                throw new EntryUnreadable(shownAs, "dangling link (" + shown(next) + " does not exist)");
            } catch (IOException e) {
                throw new EntryUnreadable(shownAs, "cannot stat " + shown(next) + ": " + describe(e));
            }
            if (attrs.isSymbolicLink()) {
                if (++hops > MAX_LINK_HOPS) {
                    throw new EntryUnreadable(shownAs, "symbolic link loop (more than " + MAX_LINK_HOPS + " hops)");
                }
                String target;
                try {
                    target = Files.readSymbolicLink(nextPath).toString();
                } catch (IOException e) {
                    throw new EntryUnreadable(shownAs, "cannot read link " + shown(next) + ": " + describe(e));
                }
                if (target.startsWith("/")) {
                    throw new EntryUnreadable(shownAs, "absolute link target '" + target + "' (sysfs links are relative)");
                }
                pushFront(pending, target);
                continue;
            }
            if (attrs.isDirectory()) realDirectories.add(next);
            else if (!pending.isEmpty()) throw new EntryUnreadable(shownAs, shown(next) + " is not a directory");
            current = next;
        }
        return current;
    }

    private static void pushFront(Deque<String> pending, String path) {
        int end = path.length();
        for (int i = path.length() - 1; i >= -1; i--) {
            if (i == -1 || path.charAt(i) == '/') {
                if (end > i + 1) pending.addFirst(path.substring(i + 1, end));
                end = i;
            }
        }
    }

    /**
     * The reason in words. The JDK's file exceptions for common errors carry no reason, only the
     * absolute path, which a problem must not show: problems name entries relative to the root.
     */
    static String describe(IOException e) {
        return switch (e) {
            case AccessDeniedException denied -> "permission denied";
            case NoSuchFileException missing -> "does not exist";
            case NotDirectoryException notDir -> "not a directory";
            case FileSystemException fse -> fse.getReason() != null ? fse.getReason() : "I/O error";
            default -> e.getMessage() != null ? e.getMessage() : "I/O error";
        };
    }
}
