package io.vfiodp.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/** What a path of the host is, as {@code stat} tells it, for messages that say what was found where a file or a socket was expected. */
public enum FileKind {
    REGULAR("a regular file"),
    DIRECTORY("a directory"),
    SYMBOLIC_LINK("a symbolic link"),
    FIFO("a FIFO (named pipe)"),
    SOCKET("a socket"),
    CHARACTER_DEVICE("a character device"),
    BLOCK_DEVICE("a block device"),
    UNKNOWN("a file of an unknown type");

    private static final LinkOption[] FOLLOW = {};
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private final String words;

    FileKind(String words) {
        this.words = words;
    }

    /** {@code a regular file}, {@code a FIFO (named pipe)}, ... */
    public String words() {
        return words;
    }

    /**
     * What {@code file} is: a link at its last component is followed unless {@code followLinks}
     * is false (and is then {@link #SYMBOLIC_LINK}).
     *
     * @throws java.nio.file.NoSuchFileException when it does not exist
     */
    public static FileKind of(Path file, boolean followLinks) throws IOException {
        LinkOption[] links = followLinks ? FOLLOW : NO_FOLLOW;
        return of(file, Files.readAttributes(file, BasicFileAttributes.class, links), links);
    }

    static FileKind of(Path file, BasicFileAttributes attrs, LinkOption[] links) {
        if (attrs.isRegularFile()) return REGULAR;
        if (attrs.isDirectory()) return DIRECTORY;
        if (attrs.isSymbolicLink()) return SYMBOLIC_LINK;
        try {
            return switch ((Integer) Files.getAttribute(file, "unix:mode", links) & 0170000) {
                case 0010000 -> FIFO;
                case 0140000 -> SOCKET;
                case 0020000 -> CHARACTER_DEVICE;
                case 0060000 -> BLOCK_DEVICE;
                default -> UNKNOWN;
            };
        } catch (IOException | UnsupportedOperationException e) {
            return UNKNOWN;
        }
    }
}
