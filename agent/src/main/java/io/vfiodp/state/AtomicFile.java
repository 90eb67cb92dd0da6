package io.vfiodp.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.nio.file.OpenOption;
import java.util.HexFormat;
import java.util.Set;

/**
 * The one way the agent writes a file that must appear whole: its state files (the switch's
 * record, the DRA checkpoint, the vGPU layout's), and the files the kubelet and the container
 * runtime read (CDI specs, KEP-5304 metadata). The content goes to a temporary file in the same
 * directory, created exclusively under a random name (so a link planted at a guessable name is
 * never followed: {@code O_CREAT|O_EXCL} refuses any existing entry, a symbolic link included),
 * given its mode, written, synced, renamed over the file (a link at the final name is replaced,
 * not followed), and the directory is synced so that the rename survives a crash. A crash leaves
 * the old file or the new one, never half of one; a failure removes the temporary file.
 *
 * <p>Temporary names start with a dot and end in {@code .tmp}: CDI caches and the kubelet's
 * watchers skip them until the rename.
 */
public final class AtomicFile {

    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");
    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFile() {}

    /**
     * Writes {@code content} as {@code file}, with {@code mode} whatever the umask; its directory
     * must exist.
     *
     * @throws IOException naming the file and why, the errno text first (a full disk, a read-only
     *                     file system, a directory in the file's place)
     */
    public static void write(Path file, byte[] content, Set<PosixFilePermission> mode) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = dir.resolve(temporaryName(file.getFileName().toString()));
        try {
            try (FileChannel ch = FileChannel.open(tmp, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(mode))) {
                // the umask may have taken bits away; set exactly, on the file just created, not through a link
                Files.getFileAttributeView(tmp, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setPermissions(mode);
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) ch.write(buffer);
                ch.force(true);
            }
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) throw new IOException("a directory is in its place");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(dir);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the write's own failure is the one to report
            }
            throw new IOException("cannot write " + file + ": " + reason(e), e);
        }
    }

    /** {@code .<name>.<16 random hex digits>.tmp}, beside the file. */
    static String temporaryName(String name) {
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        return "." + name + "." + HexFormat.of().formatHex(random) + ".tmp";
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** The errno text ("No space left on device") says what to do; a FileSystemException's message repeats the path. */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException n) return "no such file or directory: " + n.getFile();
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
