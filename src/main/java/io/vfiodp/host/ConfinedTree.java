package io.vfiodp.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A directory tree (the one that plays {@code /sys} or {@code /dev}) read without ever leaving
 * it. Symbolic links are resolved here, one hop at a time, instead of by the kernel: a target
 * that climbs above the root, is absolute, dangles, or loops is reported for the entry that
 * holds the link, and nothing outside the root is ever opened or even looked at.
 *
 * <p>Paths handed out are real (no symbolic link in any component), so files inside them can be
 * opened with {@code O_NOFOLLOW} on the last component only. Directories already proven real are
 * remembered for the life of this object, which keeps a scan to about one {@code lstat} per
 * device: sysfs link targets share almost all of their components. Safe for concurrent use.
 */
final class ConfinedTree {

    /** The kernel's own limit (MAXSYMLINKS); a sysfs path never needs more than a handful. */
    static final int MAX_LINK_HOPS = 40;
    /** Attribute files are a single value; anything larger is not a value we understand. */
    static final int MAX_ATTRIBUTE_BYTES = 4096;

    private final Path root;
    private final Set<Path> realDirectories = ConcurrentHashMap.newKeySet();

    private ConfinedTree(Path realRoot) {
        this.root = realRoot;
        realDirectories.add(realRoot);
    }

    /** Opens the tree at {@code root}; the root itself may be reached through links. */
    static ConfinedTree open(Path root) throws IOException {
        Path real = root.toRealPath();
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) throw new NotDirectoryException(root.toString());
        return new ConfinedTree(real);
    }

    Path root() {
        return root;
    }

    /** The path as problems name it: relative to the root, {@code .} for the root itself. */
    String shown(Path path) {
        String rel = root.relativize(path).toString();
        return rel.isEmpty() ? "." : rel;
    }

    /**
     * The entry {@code name} of the real directory {@code dir}, with any link resolved inside
     * the root.
     */
    Path entry(Path dir, String name) throws EntryUnreadable {
        return entry(dir, name, shown(dir.resolve(name)));
    }

    /** As {@link #entry(Path, String)}, naming the entry {@code shownAs} in problems. */
    Path entry(Path dir, String name, String shownAs) throws EntryUnreadable {
        return resolveComponents(dir, List.of(name), shownAs);
    }

    /** As {@link #entry(Path, String)}, but empty when no such entry exists (not even as a link). */
    Optional<Path> optionalEntry(Path dir, String name) throws EntryUnreadable {
        Path candidate = dir.resolve(name);
        if (realDirectories.contains(candidate)) return Optional.of(candidate);
        if (!Files.exists(candidate, LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        return Optional.of(entry(dir, name));
    }

    /** Like {@link #entry(Path, String)} and the result must be a directory. */
    Path directory(Path dir, String name) throws EntryUnreadable {
        return directory(dir, name, shown(dir.resolve(name)));
    }

    Path directory(Path dir, String name, String shownAs) throws EntryUnreadable {
        Path target = entry(dir, name, shownAs);
        if (!realDirectories.contains(target)) {
            throw new EntryUnreadable(shownAs, "not a directory (resolves to " + shown(target) + ")");
        }
        return target;
    }

    /** Walks a relative path such as {@code kernel/iommu_groups}, resolving links in the root. */
    Path walk(String relative) throws EntryUnreadable {
        List<String> parts = new ArrayList<>();
        for (String part : relative.split("/")) {
            if (!part.isEmpty()) parts.add(part);
        }
        return resolveComponents(root, parts, relative);
    }

    /** Names in a real directory, unsorted. */
    List<String> list(Path dir) throws EntryUnreadable {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) names.add(p.getFileName().toString());
        } catch (NoSuchFileException e) {
            throw EntryUnreadable.missing(shown(dir));
        } catch (IOException e) {
            throw new EntryUnreadable(shown(dir), "cannot list directory: " + describe(e));
        }
        return names;
    }

    /**
     * Reads an attribute file of a real directory: at most {@value #MAX_ATTRIBUTE_BYTES} bytes,
     * strict UTF-8, surrounding whitespace removed, not empty.
     */
    String attribute(Path dir, String name) throws EntryUnreadable {
        return attribute(dir, name, shown(dir.resolve(name)));
    }

    String attribute(Path dir, String name, String shownAs) throws EntryUnreadable {
        String value = rawAttribute(dir.resolve(name), shownAs).strip();
        if (value.isEmpty()) throw new EntryUnreadable(shownAs, "empty");
        return value;
    }

    /** The attribute's text as stored (not stripped), possibly empty; same limits otherwise. */
    String rawAttribute(Path file, String shownAs) throws EntryUnreadable {
        ByteBuffer buf = ByteBuffer.allocate(MAX_ATTRIBUTE_BYTES + 1);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            // One read: regular files and sysfs attributes hand over everything available up
            // to the buffer size at once, so a full buffer means the file is too large. A
            // second read just to see EOF would add a syscall per attribute.
            ch.read(buf);
            if (!buf.hasRemaining()) {
                throw new EntryUnreadable(shownAs, "larger than " + MAX_ATTRIBUTE_BYTES + " bytes");
            }
        } catch (NoSuchFileException e) {
            throw EntryUnreadable.missing(shownAs);
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) throw new EntryUnreadable(shownAs, "is a symbolic link, not an attribute file");
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) throw new EntryUnreadable(shownAs, "is a directory, not an attribute file");
            throw new EntryUnreadable(shownAs, "cannot read: " + describe(e));
        }
        buf.flip();
        return decode(buf, shownAs);
    }

    /**
     * As {@link #rawAttribute} but empty when the file does not exist. Used for files the
     * kernel may legitimately leave out.
     */
    Optional<String> optionalRawAttribute(Path dir, String name) throws EntryUnreadable {
        Path file = dir.resolve(name);
        String shownAs = shown(file);
        try {
            return Optional.of(rawAttribute(file, shownAs));
        } catch (EntryUnreadable e) {
            if (e.isMissing()) return Optional.empty();
            throw e;
        }
    }

    /** True when {@code name} in {@code dir} is a char device or a regular file (not followed). */
    boolean isDeviceNode(Path dir, String name) {
        try {
            int mode = (Integer) Files.getAttribute(dir.resolve(name), "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int type = mode & 0170000;
            return type == 0020000 || type == 0100000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static String decode(ByteBuffer buf, String shownAs) throws EntryUnreadable {
        boolean ascii = true;
        for (int i = buf.position(); i < buf.limit(); i++) {
            if (buf.get(i) < 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) return new String(buf.array(), 0, buf.limit(), StandardCharsets.US_ASCII);
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder().decode(buf);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new EntryUnreadable(shownAs, "not UTF-8 text");
        }
    }

    /**
     * Resolves {@code components} starting at the real directory {@code start}. Every
     * component is checked with {@code lstat} unless already proven real; links are read and
     * their targets pushed in front of the remaining components, so nested links and links in
     * the middle of a target are handled alike.
     */
    private Path resolveComponents(Path start, List<String> components, String shownAs) throws EntryUnreadable {
        Deque<String> pending = new ArrayDeque<>(components);
        Path current = start;
        int hops = 0;
        while (!pending.isEmpty()) {
            String part = pending.pollFirst();
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                // current is real, so its lexical parent is its true parent
                if (current.equals(root)) {
                    throw new EntryUnreadable(shownAs, "link leads outside the scanned root");
                }
                current = current.getParent();
                continue;
            }
            Path next = current.resolve(part);
            if (realDirectories.contains(next)) {
                current = next;
                continue;
            }
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(next, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
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
                    target = Files.readSymbolicLink(next).toString();
                } catch (IOException e) {
                    throw new EntryUnreadable(shownAs, "cannot read link " + shown(next) + ": " + describe(e));
                }
                if (target.startsWith("/")) {
                    throw new EntryUnreadable(shownAs, "absolute link target '" + target + "' (sysfs links are relative)");
                }
                String[] targetParts = target.split("/");
                for (int i = targetParts.length - 1; i >= 0; i--) pending.addFirst(targetParts[i]);
                continue;
            }
            if (attrs.isDirectory()) realDirectories.add(next);
            else if (!pending.isEmpty()) {
                throw new EntryUnreadable(shownAs, shown(next) + " is not a directory");
            }
            current = next;
        }
        return current;
    }

    private static String describe(IOException e) {
        if (e instanceof FileSystemException fse && fse.getReason() != null) return fse.getReason();
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
