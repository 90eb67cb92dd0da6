package io.vfiodp.host;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;

/**
 * The pci.ids database: vendor and device names by id.
 *
 * <p>Loading only finds where each vendor's block starts (one pass over the bytes, stopping at
 * the device-class section); a vendor's device lines are parsed the first time one of its
 * devices is looked up. The serve command must register with the kubelet within a second of
 * start, and a full parse of ~36,000 lines on a cold JVM would eat a good part of that. The
 * vendor and device lines stay in memory as text for those later look-ups (0.75 of the file's
 * 1.4 MB, most of the plugin's live heap otherwise); comments, blank and subsystem lines and
 * the class section are never parsed, so loading drops them.
 *
 * <p>Safe for concurrent look-ups: the per-vendor cache is a concurrent map of immutable maps.
 */
public final class PciIds {

    /** Where distributions install pci.ids, in the order we try them. */
    public static final List<Path> SYSTEM_LOCATIONS = List.of(
            Path.of("/usr/share/misc/pci.ids"), Path.of("/usr/share/hwdata/pci.ids"), Path.of("/usr/share/pci.ids"));

    static final String BUNDLED_RESOURCE = "/pci.ids.gz";
    static final String BUNDLED_SOURCE = "bundled pci.ids (jar:" + BUNDLED_RESOURCE + ")";

    private final String source;
    private final byte[] text;
    /** vendor id → {start of the vendor line, end of its block}. */
    private final Map<Integer, int[]> vendorBlocks;
    private final Map<Integer, Map<Integer, String>> devicesByVendor = new ConcurrentHashMap<>();

    private PciIds(String source, byte[] text, Map<Integer, int[]> vendorBlocks) {
        this.source = source;
        this.text = text;
        this.vendorBlocks = vendorBlocks;
    }

    /**
     * The explicit file when given (an error naming it when it cannot be read), else the first
     * of {@link #SYSTEM_LOCATIONS} that exists, else the copy bundled in the jar.
     */
    public static PciIds load(Optional<Path> explicit) throws IOException {
        return load(explicit, SYSTEM_LOCATIONS);
    }

    static PciIds load(Optional<Path> explicit, List<Path> systemLocations) throws IOException {
        if (explicit.isPresent()) {
            return read(explicit.get());
        }
        for (Path candidate : systemLocations) {
            if (Files.isRegularFile(candidate)) {
                return read(candidate);
            }
        }
        return bundled();
    }

    /** The copy in the jar (Debian's pci.ids 2023.04.10). */
    public static PciIds bundled() throws IOException {
        try (InputStream in = PciIds.class.getResourceAsStream(BUNDLED_RESOURCE)) {
            if (in == null) throw new IOException(BUNDLED_SOURCE + " is missing from the class path");
            return parse(BUNDLED_SOURCE, in.readAllBytes());
        }
    }

    private static PciIds read(Path file) throws IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("cannot read pci.ids database " + file + ": " + describe(e), e);
        }
        return parse(file.toString(), content);
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file";
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * A database from raw pci.ids content, plain or gzip-compressed; {@code source} names it in
     * messages. Throws when the content holds no vendor line at all.
     */
    public static PciIds parse(String source, byte[] content) throws IOException {
        byte[] plain = withoutUnreadLines(isGzip(content) ? gunzip(source, content) : content);
        Map<Integer, int[]> blocks = indexVendors(plain);
        if (blocks.isEmpty()) {
            throw new IOException("pci.ids database " + source + " has no vendor lines ('vvvv  Vendor name'): not a pci.ids file");
        }
        return new PciIds(source, plain, Collections.unmodifiableMap(blocks));
    }

    private static boolean isGzip(byte[] b) {
        return b.length >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b;
    }

    private static byte[] gunzip(String source, byte[] content) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(content), 64 * 1024)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IOException("pci.ids database " + source + " is gzip-compressed but cannot be decompressed: " + e.getMessage(), e);
        }
    }

    /**
     * The lines up to the device-class section without comments, blank lines and subsystem lines
     * (two tabs): neither {@link #indexVendors} nor {@link #parseDevices} reads them.
     */
    private static byte[] withoutUnreadLines(byte[] t) {
        byte[] kept = new byte[t.length];
        int length = 0;
        int pos = 0;
        int n = t.length;
        while (pos < n) {
            int lineStart = pos;
            while (pos < n && t[pos] != '\n') pos++;
            pos = Math.min(pos + 1, n);
            byte first = t[lineStart];
            if (first == 'C' && lineStart + 1 < n && t[lineStart + 1] == ' ') break;
            boolean subsystem = first == '\t' && lineStart + 1 < n && t[lineStart + 1] == '\t';
            if (first == '#' || first == '\n' || first == '\r' || subsystem) continue;
            System.arraycopy(t, lineStart, kept, length, pos - lineStart);
            length += pos - lineStart;
        }
        return Arrays.copyOf(kept, length);
    }

    /** Bytes of pci.ids text held for look-ups. */
    int retainedBytes() {
        return text.length;
    }

    private static Map<Integer, int[]> indexVendors(byte[] t) {
        Map<Integer, int[]> blocks = new HashMap<>(4096);
        int[] open = null;
        int pos = 0;
        int n = t.length;
        while (pos < n) {
            int lineStart = pos;
            byte first = t[pos];
            if (first == 'C' && pos + 1 < n && t[pos + 1] == ' ') {
                // the device-class section follows the vendor list; nothing in it is ours
                break;
            }
            if (first != '\t' && first != '#') {
                int id = hex4(t, pos);
                if (id >= 0 && pos + 4 < n && t[pos + 4] == ' ') {
                    if (open != null) open[1] = lineStart;
                    open = new int[] {lineStart, n};
                    // a repeated vendor id keeps its first block, as lspci does
                    blocks.putIfAbsent(id, open);
                }
            }
            while (pos < n && t[pos] != '\n') pos++;
            pos++;
        }
        if (open != null && open[1] > pos) open[1] = Math.min(pos, n);
        return blocks;
    }

    /** Four hex digits at {@code at} as a number, or -1. */
    private static int hex4(byte[] t, int at) {
        if (at + 4 > t.length) return -1;
        int v = 0;
        for (int i = at; i < at + 4; i++) {
            int d = Character.digit(t[i], 16);
            if (d < 0) return -1;
            v = (v << 4) | d;
        }
        return v;
    }

    /** Where the names come from: a file path or the bundled copy. */
    public String source() {
        return source;
    }

    public int vendorCount() {
        return vendorBlocks.size();
    }

    public Optional<String> vendorName(int vendor) {
        int[] block = vendorBlocks.get(vendor);
        if (block == null) return Optional.empty();
        int end = lineEnd(block[0]);
        return Optional.of(name(block[0] + 4, end)).filter(s -> !s.isEmpty());
    }

    public Optional<String> deviceName(int vendor, int device) {
        return Optional.ofNullable(devices(vendor).get(device));
    }

    private Map<Integer, String> devices(int vendor) {
        int[] block = vendorBlocks.get(vendor);
        if (block == null) return Map.of();
        return devicesByVendor.computeIfAbsent(vendor, v -> parseDevices(block[0], block[1]));
    }

    private Map<Integer, String> parseDevices(int start, int end) {
        Map<Integer, String> out = new HashMap<>();
        int pos = lineEnd(start) + 1;
        while (pos < end) {
            int eol = lineEnd(pos);
            if (t(pos) == '\t' && pos + 1 < eol && t(pos + 1) != '\t') {
                int id = hex4(text, pos + 1);
                if (id >= 0 && pos + 5 < eol && t(pos + 5) == ' ') {
                    String name = name(pos + 5, eol);
                    if (!name.isEmpty()) out.putIfAbsent(id, name);
                }
            }
            pos = eol + 1;
        }
        return Map.copyOf(out);
    }

    private byte t(int i) {
        return text[i];
    }

    private int lineEnd(int from) {
        int i = from;
        while (i < text.length && text[i] != '\n') i++;
        return i;
    }

    private String name(int from, int to) {
        int a = from;
        int b = to;
        while (a < b && (text[a] == ' ' || text[a] == '\t')) a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r')) b--;
        return new String(text, a, b - a, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "PciIds[" + source + ", " + vendorBlocks.size() + " vendors]";
    }
}
