package io.vfiodp.dra.claims;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** The directories a claim's files live in: made one by one under a root, never through a link; removed whole. */
final class FileTrees {

    static final FileAttribute<Set<PosixFilePermission>> DIRECTORY_MODE = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwxr-xr-x"));

    private FileTrees() {}

    /** {@code dir} and the directories between it and {@code root}, never through a link someone put in their place. */
    static void makeDirectories(Path root, Path dir) throws IOException {
        Path at = root;
        for (Path part : root.relativize(dir)) {
            at = at.resolve(part);
            if (Files.isSymbolicLink(at)) throw new IOException("cannot write under " + at + ": it is a symbolic link, which the agent never makes");
            if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) Files.createDirectories(at, DIRECTORY_MODE);
        }
    }

    /** Removes {@code dir} and everything in it (links, not what they point to); none is no error. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) throw e;
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException gone) {
            // removed meanwhile: the same outcome
        }
    }
}
