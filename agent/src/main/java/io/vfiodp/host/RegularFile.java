package io.vfiodp.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one way the agent opens a file of the host to read it (sysfs attributes, {@code /proc}
 * files, the configuration, pci.ids): only when it is a regular file. Opening a FIFO for reading
 * blocks until a writer comes, and reading a socket or a device may never end, so a FIFO put in
 * place of {@code numa_node} would hang the scan, {@code doctor} and {@code inventory}. The file's
 * type is checked ({@code lstat}, or {@code stat} when links are followed) just before it is
 * opened; real sysfs and procfs hold no FIFOs, so this guards against trees that are not the
 * kernel's (copies, fakes, a file a tool left behind), not against a writer racing the check.
 */
public final class RegularFile {

    private static final OpenOption[] READ = {StandardOpenOption.READ};
    private static final OpenOption[] READ_NO_FOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
    private static final LinkOption[] FOLLOW = {};
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private RegularFile() {}

    /** Something other than a regular file where one was to be read; {@link #kind()} says what, {@link #getReason()} in a sentence. */
    public static final class NotRegular extends FileSystemException {
        private static final long serialVersionUID = 1L;

        private final FileKind kind;

        NotRegular(Path file, FileKind kind) {
            super(file.toString(), null, "is " + kind.words() + ", not a regular file");
            this.kind = kind;
        }

        public FileKind kind() {
            return kind;
        }
    }

    /**
     * Opens {@code file} for reading when it is a regular file: not through a link at its last
     * component unless {@code followLinks}.
     *
     * @throws NotRegular                        when it is anything else (a link, with {@code followLinks} false)
     * @throws java.nio.file.NoSuchFileException when it does not exist
     */
    public static FileChannel open(Path file, boolean followLinks) throws IOException {
        LinkOption[] links = followLinks ? FOLLOW : NO_FOLLOW;
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, links);
        if (!attrs.isRegularFile()) throw new NotRegular(file, FileKind.of(file, attrs, links));
        return FileChannel.open(file, followLinks ? READ : READ_NO_FOLLOW);
    }
}
