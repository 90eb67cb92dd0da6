package io.vfiodp.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A directory tree as text, so a sysfs-like fixture (full of symlinks, which a jar cannot hold)
 * can ship inside the jar and be rebuilt in a temporary directory. One entry per line, sorted by
 * path, fields separated by a tab:
 * <pre>
 * d  path
 * f  path  content
 * l  path  relative-target
 * </pre>
 * Paths are relative with {@code /}. Paths, contents and targets are bytes written as printable
 * ASCII; {@code \\}, {@code \n}, {@code \t} and {@code \xHH} stand for the rest.
 */
public final class TreeManifest {

    private static final String HEADER = "# vfio-device-plugin tree manifest v1";

    private TreeManifest() {}

    /** The manifest of everything under {@code root} (not {@code root} itself); symlinks are recorded, not followed. */
    public static String write(Path root) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                if (p.equals(root)) continue;
                String rel = escape(root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/")
                        .getBytes(StandardCharsets.UTF_8));
                if (Files.isSymbolicLink(p)) {
                    lines.add("l\t" + rel + "\t" + escape(Files.readSymbolicLink(p).toString().getBytes(StandardCharsets.UTF_8)));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    lines.add("d\t" + rel);
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    lines.add("f\t" + rel + "\t" + escape(Files.readAllBytes(p)));
                } else {
                    throw new IOException(p + " is neither a directory, a regular file nor a symlink; a manifest cannot hold it");
                }
            }
        }
        lines.sort(java.util.Comparator.comparing(l -> l.split("\t", 3)[1]));
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (String l : lines) sb.append(l).append('\n');
        return sb.toString();
    }

    /** Rebuilds the tree {@code manifest} describes under {@code target} (which may exist and be empty). */
    public static void materialise(String manifest, Path target) throws IOException {
        Path base = target.toAbsolutePath().normalize();
        int lineNo = 0;
        for (String line : manifest.split("\n", -1)) {
            lineNo++;
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] f = line.split("\t", -1);
            String where = "manifest line " + lineNo;
            Path p = inside(base, new String(unescape(field(f, 1, where), where), StandardCharsets.UTF_8), where);
            switch (f[0]) {
                case "d" -> Files.createDirectories(p);
                case "f" -> {
                    Files.createDirectories(p.getParent());
                    Files.write(p, unescape(field(f, 2, where), where));
                }
                case "l" -> {
                    String linkTarget = new String(unescape(field(f, 2, where), where), StandardCharsets.UTF_8);
                    if (linkTarget.startsWith("/")) throw new IOException(where + ": link " + f[1] + " points outside the tree: " + linkTarget);
                    Files.createDirectories(p.getParent());
                    Files.createSymbolicLink(p, Path.of(linkTarget));
                }
                default -> throw new IOException(where + ": unknown entry type '" + f[0] + "' (expected d, f or l)");
            }
        }
    }

    private static String field(String[] fields, int i, String where) throws IOException {
        if (fields.length <= i) throw new IOException(where + ": missing field " + (i + 1));
        return fields[i];
    }

    private static Path inside(Path base, String rel, String where) throws IOException {
        Path p = base.resolve(rel).normalize();
        if (rel.isEmpty() || rel.startsWith("/") || !p.startsWith(base) || p.equals(base)) {
            throw new IOException(where + ": path '" + rel + "' is not inside the tree");
        }
        return p;
    }

    static String escape(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length);
        for (byte b : bytes) {
            int c = b & 0xff;
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c >= 0x20 && c < 0x7f) sb.append((char) c);
                    else sb.append(String.format("\\x%02x", c));
                }
            }
        }
        return sb.toString();
    }

    static byte[] unescape(String text, String where) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.write(c);
                continue;
            }
            if (++i >= text.length()) throw new IOException(where + ": dangling '\\'");
            switch (text.charAt(i)) {
                case '\\' -> out.write('\\');
                case 'n' -> out.write('\n');
                case 't' -> out.write('\t');
                case 'x' -> {
                    if (i + 3 > text.length()) throw new IOException(where + ": short \\x escape");
                    try {
                        out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                    } catch (NumberFormatException e) {
                        throw new IOException(where + ": bad \\x escape");
                    }
                    i += 2;
                }
                default -> throw new IOException(where + ": unknown escape '\\" + text.charAt(i) + "'");
            }
        }
        return out.toByteArray();
    }
}
