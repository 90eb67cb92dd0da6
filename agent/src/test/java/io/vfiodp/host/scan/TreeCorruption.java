package io.vfiodp.host.scan;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

/**
 * One thing done to one entry of a copied fixture node: {@code path} is relative to the node
 * ({@code sys/...} or {@code dev/...}); {@code variant} (0..2) picks among a kind's flavours,
 * and shrinks towards the plainest.
 */
record TreeCorruption(String path, Kind kind, int variant) {

    enum Kind {
        /** The first half of the content. */
        TRUNCATED,
        /** Larger than the scanner's per-file bound: 4097 bytes, 1 MiB, or a 1 GiB sparse file. */
        OVERSIZED,
        /** Bytes that are not text: NULs and 0xff in front, invalid UTF-8, a NUL inside. */
        BINARY,
        EMPTY,
        /** Replaced by a link to nothing. */
        DANGLING_LINK,
        /** Replaced by a link to itself, or by one of two links pointing at each other. */
        LINK_LOOP,
        /** Replaced by {@code ../..} up out of the root, into an intact copy of the same node. */
        LINK_OUT_RELATIVE,
        /** Replaced by an absolute link into an intact copy of the same node. */
        LINK_OUT_ABSOLUTE,
        /** Replaced by {@code ../..} to the directory that holds the roots. */
        LINK_ABOVE_ROOT,
        /** Mode 000. */
        PERMISSION_DENIED,
        /** Replaced by a FIFO (named pipe), which no one writes: opening it to read would block for ever. */
        FIFO;

        static final List<Kind> FOR_FILES = List.of(values());
        static final List<Kind> FOR_DIRECTORIES =
                List.of(DANGLING_LINK, LINK_LOOP, LINK_OUT_RELATIVE, LINK_OUT_ABSOLUTE, LINK_ABOVE_ROOT, PERMISSION_DENIED);
        // chmod follows a link, so denying one would deny its target instead
        static final List<Kind> FOR_LINKS = List.of(DANGLING_LINK, LINK_LOOP, LINK_OUT_RELATIVE, LINK_OUT_ABSOLUTE, LINK_ABOVE_ROOT);
    }

    static final long[] OVERSIZED_BYTES = {AttributeFile.MAX_BYTES + 1, 1L << 20, 1L << 30};

    @Override
    public String toString() {
        return path + " " + kind + (variant == 0 ? "" : "#" + variant);
    }

    /**
     * Applies this to the node under {@code nodeDir}, whose intact twin is {@code twinDir} (a
     * sibling of {@code nodeDir}). False when an earlier corruption already took the entry
     * away (a parent replaced by a link, or the entry no longer of its kind).
     */
    boolean applyTo(Path nodeDir, Path twinDir) throws IOException {
        Path target = nodeDir.resolve(path);
        if (!reachableWithoutLinks(nodeDir, target)) return false;
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return false;
        }
        switch (kind) {
            case TRUNCATED, OVERSIZED, BINARY, EMPTY -> {
                if (!attrs.isRegularFile()) return false;
                rewrite(target);
            }
            case FIFO -> {
                if (!attrs.isRegularFile()) return false;
                io.vfiodp.host.fixtures.Trees.replaceWithFifo(target);
            }
            case PERMISSION_DENIED -> {
                if (attrs.isSymbolicLink()) return false;
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("---------"));
            }
            default -> replaceWithLink(target, attrs, twinDir);
        }
        return true;
    }

    private void rewrite(Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        switch (kind) {
            case TRUNCATED -> Files.write(file, Arrays.copyOf(content, content.length / 2));
            case EMPTY -> Files.write(file, new byte[0]);
            case BINARY -> Files.write(file, binary(content));
            case OVERSIZED -> {
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.write(content);
                    // the rest stays a hole: no disk used, but a reader that does not stop gets all of it
                    f.setLength(Math.max(content.length, OVERSIZED_BYTES[variant]));
                    // a file already over the bound (the hostile node has one) stays as it is
                    if (variant == 0 && content.length < OVERSIZED_BYTES[0]) {
                        f.seek(content.length);
                        f.write("x".repeat((int) OVERSIZED_BYTES[0] - content.length).getBytes(StandardCharsets.US_ASCII));
                    }
                }
            }
            default -> throw new IllegalStateException(kind + " does not rewrite content");
        }
    }

    private byte[] binary(byte[] content) {
        return switch (variant) {
            case 0 -> concat(new byte[] {0, 1, (byte) 0xff, (byte) 0xfe}, content);
            case 1 -> new byte[] {(byte) 0xc3, (byte) 0x28, (byte) 0xa0, (byte) 0xa1, (byte) 0xf0, (byte) 0x28, (byte) 0x8c, '\n'};
            default -> {
                byte[] out = content.clone();
                if (out.length > 0) out[out.length / 2] = 0;
                yield out;
            }
        };
    }

    private void replaceWithLink(Path target, BasicFileAttributes attrs, Path twinDir) throws IOException {
        if (attrs.isDirectory()) io.vfiodp.host.fixtures.Trees.deleteRecursively(target);
        else Files.delete(target);
        Path parent = target.getParent();
        String up = "../".repeat(Path.of(path).getNameCount()); // from the link's directory to the node's parent
        switch (kind) {
            case DANGLING_LINK -> Files.createSymbolicLink(target, Path.of("no-such-entry"));
            case LINK_LOOP -> {
                if (variant == 0) {
                    Files.createSymbolicLink(target, target.getFileName());
                } else {
                    Path other = parent.resolve(target.getFileName() + ".loop");
                    Files.deleteIfExists(other);
                    Files.createSymbolicLink(target, other.getFileName());
                    Files.createSymbolicLink(other, target.getFileName());
                }
            }
            case LINK_OUT_RELATIVE -> Files.createSymbolicLink(target, Path.of(up + twinDir.getFileName() + "/" + path));
            case LINK_OUT_ABSOLUTE -> Files.createSymbolicLink(target, twinDir.resolve(path));
            case LINK_ABOVE_ROOT -> Files.createSymbolicLink(target, Path.of(up.substring(0, up.length() - 1)));
            default -> throw new IllegalStateException(kind + " is not a link corruption");
        }
    }

    private static boolean reachableWithoutLinks(Path nodeDir, Path target) {
        for (Path p = target.getParent(); !p.equals(nodeDir); p = p.getParent()) {
            if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) return false;
        }
        return true;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
