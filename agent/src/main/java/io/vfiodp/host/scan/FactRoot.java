package io.vfiodp.host.scan;

import io.vfiodp.host.Reading;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/**
 * A root ({@code /sys} or {@code /proc}) whose single facts are read as {@link Reading}s: through
 * a {@link ConfinedTree}, so nothing outside the root is opened, with files named as the caller
 * named the root ({@code /host/sys/module/vfio}). A root that cannot be opened makes every fact
 * unreadable, naming the root.
 */
final class FactRoot {

    private static final String MISSING = "does not exist";

    private final Path given;
    private final Optional<ConfinedTree> tree;
    private final String whyUnusable;

    private FactRoot(Path given, Optional<ConfinedTree> tree, String whyUnusable) {
        this.given = given;
        this.tree = tree;
        this.whyUnusable = whyUnusable;
    }

    static FactRoot open(Path root) {
        try {
            return new FactRoot(root, Optional.of(ConfinedTree.open(root, ConfinedTree.isKernelTree(root))), "");
        } catch (NoSuchFileException e) {
            return new FactRoot(root, Optional.empty(), MISSING);
        } catch (NotDirectoryException e) {
            return new FactRoot(root, Optional.empty(), "not a directory");
        } catch (IOException e) {
            return new FactRoot(root, Optional.empty(), "cannot be opened: " + ConfinedTree.describe(e));
        }
    }

    /** Whether the root does not exist at all (a container without {@code /boot}), as opposed to existing and being unusable. */
    boolean missing() {
        return tree.isEmpty() && whyUnusable.equals(MISSING);
    }

    /** {@code relative} as problems name it: below the root as given. */
    String shown(String relative) {
        return relative.isEmpty() || relative.equals(".") ? given.toString() : given.resolve(relative).toString();
    }

    /** The names in directory {@code relative}. */
    Reading<String[]> list(String relative) {
        return read(relative, t -> t.list(entry(t, relative)));
    }

    /** Whether entry {@code relative} exists (as anything, links resolved inside the root). */
    Reading<Boolean> exists(String relative) {
        Reading<String> real = read(relative, t -> entry(t, relative));
        return real instanceof Reading.Absent<String> ? new Reading.Found<>(false) : real.map(r -> true);
    }

    /** The attribute file {@code relative}, surrounding whitespace removed (possibly empty). */
    Reading<String> attribute(String relative) {
        return read(relative, t -> {
            String real = entry(t, relative);
            return t.rawAttribute(ConfinedTree.parent(real), ConfinedTree.fileName(real), relative).strip();
        });
    }

    /** Feeds the lines of the text file {@code relative} to {@code lines}, at most {@code maxChars} characters. */
    Reading<Boolean> lines(String relative, long maxChars, LineFile.Lines lines) {
        return read(relative, t -> {
            LineFile.read(t, entry(t, relative), relative, maxChars, lines);
            return true;
        });
    }

    /** As {@link #lines}, for a gzip-compressed file ({@code /proc/config.gz}); {@code maxChars} counts the text inflated. */
    Reading<Boolean> gzipLines(String relative, long maxChars, LineFile.Lines lines) {
        return read(relative, t -> {
            LineFile.readGzip(t, entry(t, relative), relative, maxChars, lines);
            return true;
        });
    }

    /**
     * The real path of {@code relative}: its directory resolved first, so that a last component
     * that does not exist is missing even where the way to it went through links (sysfs's
     * {@code bus/pci/devices/<address>} are links).
     */
    private static String entry(ConfinedTree t, String relative) throws EntryUnreadable {
        int slash = relative.lastIndexOf('/');
        String dir = slash < 0 ? t.root() : t.walk(relative.substring(0, slash));
        String name = relative.substring(slash + 1);
        return t.optionalEntry(dir, name, relative).orElseThrow(() -> EntryUnreadable.missing(relative));
    }

    @FunctionalInterface
    interface Read<T> {
        T from(ConfinedTree tree) throws EntryUnreadable;
    }

    <T> Reading<T> read(String relative, Read<T> read) {
        if (tree.isEmpty()) return new Reading.Unreadable<>(shown(""), whyUnusable);
        try {
            return new Reading.Found<>(read.from(tree.get()));
        } catch (EntryUnreadable e) {
            return e.isMissing() ? new Reading.Absent<>(shown(relative)) : new Reading.Unreadable<>(shown(e.path()), e.reason());
        }
    }

    /** A reading whose value failed to parse: unreadable, naming the file and what it held. */
    static <T, R> Reading<R> parsed(Reading<T> reading, String file, Function<T, R> parse) {
        if (!(reading instanceof Reading.Found<T>(T value))) return reading.map(v -> null);
        try {
            return new Reading.Found<>(parse.apply(value));
        } catch (IllegalArgumentException e) {
            return new Reading.Unreadable<>(file, e.getMessage());
        }
    }
}
