package io.vfiodp.host;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pci.ids database: vendor and device names by id.
 *
 * <p>Which copy ({@link PciIdsCopies}; {@link #origin()} says which and why): an explicit file, else
 * the newer by {@code Version:} of the first system file and the jar's copy (Debian's
 * {@code pci.ids}, refreshed by {@code bin/refresh-pci-ids}): a stale copy names new GPUs by hex id.
 *
 * <p>Reading streams the file once up to the device-class section and keeps only the vendor
 * lines and the device lines of the vendors asked for ({@link #load(Optional, Set)}; all of
 * them with {@link #load(Optional)}): comments, blank and subsystem lines are dropped as they
 * go by. The plugin names the devices of one vendor, NVIDIA ({@code PolicyEngine.vendorsNamed}),
 * about 2,000 lines out of ~43,000; holding the whole database (0.94 MB even without the dropped
 * lines) was most of its live heap, and reading it into one array before filtering put 3 MB of garbage into the old
 * generation at start. A vendor's device lines are parsed the first time one of its devices
 * is looked up.
 *
 * <p>Safe for concurrent look-ups: the per-vendor cache is a concurrent map of immutable maps.
 */
public final class PciIds {

    /** Where distributions install pci.ids, in the order we try them. */
    public static final List<Path> SYSTEM_LOCATIONS = List.of(
            Path.of("/usr/share/misc/pci.ids"), Path.of("/usr/share/hwdata/pci.ids"), Path.of("/usr/share/pci.ids"));

    private static final Logger LOG = LoggerFactory.getLogger(PciIds.class);

    static final String BUNDLED_RESOURCE = "/pci.ids.gz";
    static final String BUNDLED_SOURCE = "bundled pci.ids (jar:" + BUNDLED_RESOURCE + ")";
    private static final int CHUNK = 64 * 1024;

    /**
     * Where a database came from, for the log and {@code inventory}.
     *
     * @param source  a file path or the bundled copy
     * @param version the header's {@code Version:} ({@code 2026.10.24}), when it has one
     * @param reason  why this copy was chosen; empty when nothing was chosen (explicit content)
     */
    public record Origin(String source, Optional<String> version, Optional<String> reason) {
        /** {@code bundled pci.ids (jar:/pci.ids.gz), version 2026.10.24: newer than /usr/share/misc/pci.ids (2025.07.11)}. */
        public String describe() {
            return source + version.map(v -> ", version " + v).orElse("") + reason.map(r -> ": " + r).orElse("");
        }
    }

    private final Origin origin;
    private final byte[] text;
    /** The vendors whose device lines were kept; empty: all. */
    private final Optional<Set<Integer>> deviceVendors;
    /** vendor id → {start of the vendor line, end of its block}. */
    private final Map<Integer, int[]> vendorBlocks;
    private final Map<Integer, Map<Integer, String>> devicesByVendor = new ConcurrentHashMap<>();

    private PciIds(Origin origin, byte[] text, Optional<Set<Integer>> deviceVendors, Map<Integer, int[]> vendorBlocks) {
        this.origin = origin;
        this.text = text;
        this.deviceVendors = deviceVendors;
        this.vendorBlocks = vendorBlocks;
    }

    /**
     * The explicit file when given (an error naming it when it cannot be read), else the newer of
     * the first of {@link #SYSTEM_LOCATIONS} that exists and the copy bundled in the jar; every
     * vendor's device names.
     */
    public static PciIds load(Optional<Path> explicit) throws IOException {
        return load(explicit, SYSTEM_LOCATIONS, Optional.empty());
    }

    /**
     * As {@link #load(Optional)}, with the device names of {@code deviceVendors} only (vendor
     * names of all), as {@code serve} loads it; logs which copy it uses and why.
     */
    public static PciIds load(Optional<Path> explicit, Set<Integer> deviceVendors) throws IOException {
        PciIds ids = load(explicit, SYSTEM_LOCATIONS, Optional.of(Set.copyOf(deviceVendors)));
        LOG.info("pci.ids: {}", ids.origin().describe());
        return ids;
    }

    static PciIds load(Optional<Path> explicit, List<Path> systemLocations) throws IOException {
        return load(explicit, systemLocations, Optional.empty());
    }

    static PciIds load(Optional<Path> explicit, List<Path> systemLocations, Optional<Set<Integer>> deviceVendors) throws IOException {
        return PciIdsCopies.load(explicit, systemLocations, deviceVendors);
    }

    /** The copy in the jar (Debian's {@code pci.ids} package; {@code bin/refresh-pci-ids} says which version). */
    public static PciIds bundled() throws IOException {
        return PciIdsCopies.bundled(Optional.empty(), "the bundled copy");
    }

    /**
     * A database from raw pci.ids content, plain or gzip-compressed; {@code source} names it in
     * messages. Throws when the content holds no vendor line at all.
     */
    public static PciIds parse(String source, byte[] content) throws IOException {
        return parse(source, new ByteArrayInputStream(content), Optional.empty(), Optional.empty());
    }

    static PciIds parse(String source, InputStream raw, Optional<Set<Integer>> deviceVendors, Optional<String> reason)
            throws IOException {
        BufferedInputStream in = new BufferedInputStream(raw, CHUNK);
        in.mark(2);
        boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
        in.reset();
        Kept kept;
        // closing the inflater's stream frees its native memory now rather than when a GC finds it
        try (InputStream plain = gzip ? new GZIPInputStream(in, CHUNK) : in) {
            kept = keptLines(plain, deviceVendors);
        } catch (IOException e) {
            throw new IOException(gzip ? "pci.ids database " + source + " is gzip-compressed but cannot be decompressed: " + e.getMessage()
                    : "cannot read pci.ids database " + source + ": " + PciIdsCopies.describe(e), e);
        }
        if (kept.vendorBlocks().isEmpty()) {
            throw new IOException("pci.ids database " + source + " has no vendor lines ('vvvv  Vendor name'): not a pci.ids file");
        }
        return new PciIds(new Origin(source, kept.version(), reason), kept.text(), deviceVendors,
                Collections.unmodifiableMap(kept.vendorBlocks()));
    }

    /** The lines kept, where each vendor's block of them starts and ends (vendor id → {start, end}), and the header's version. */
    private record Kept(byte[] text, Map<Integer, int[]> vendorBlocks, Optional<String> version) {}

    /**
     * The vendor lines, and the device lines (one tab) of the vendors {@code deviceVendors}
     * holds, up to the device-class section; read a chunk at a time, indexed as they are kept.
     */
    private static Kept keptLines(InputStream in, Optional<Set<Integer>> deviceVendors) throws IOException {
        byte[] buf = new byte[CHUNK];
        byte[] out = new byte[deviceVendors.isPresent() ? CHUNK : 16 * CHUNK];
        int outLength = 0;
        Map<Integer, int[]> blocks = new HashMap<>(4096);
        int[] open = null;
        int length = 0;
        boolean keepDevices = false;
        boolean end = false;
        Optional<String> version = Optional.empty();
        while (!end) {
            if (length == buf.length) buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
            int n = in.read(buf, length, buf.length - length);
            boolean eof = n < 0;
            if (!eof) length += n;
            int pos = 0;
            while (pos < length) {
                int eol = pos;
                while (eol < length && buf[eol] != '\n') eol++;
                if (eol == length && !eof) break; // the rest of this line is in the next chunk
                int next = Math.min(eol + 1, length);
                byte first = buf[pos];
                boolean keep = false;
                if (first == 'C' && pos + 1 < length && buf[pos + 1] == ' ') {
                    end = true; // the device-class section follows the vendor list; nothing in it is ours
                    break;
                } else if (first == '\t') {
                    keep = keepDevices && pos + 1 < eol && buf[pos + 1] != '\t';
                } else if (first == '#') {
                    if (version.isEmpty() && open == null) {
                        version = PciIdsCopies.versionOf(new String(buf, pos, eol - pos, StandardCharsets.UTF_8));
                    }
                } else {
                    int id = hex4(buf, pos, eol);
                    if (id >= 0 && pos + 4 < eol && buf[pos + 4] == ' ') {
                        keep = true;
                        keepDevices = deviceVendors.map(v -> v.contains(id)).orElse(true);
                        if (open != null) open[1] = outLength;
                        open = new int[] {outLength, -1};
                        // a repeated vendor id keeps its first block, as lspci does
                        blocks.putIfAbsent(id, open);
                    }
                }
                if (keep) {
                    int lineLength = next - pos;
                    if (outLength + lineLength + 1 > out.length) out = Arrays.copyOf(out, Math.max(out.length * 2, outLength + lineLength + 1));
                    System.arraycopy(buf, pos, out, outLength, lineLength);
                    outLength += lineLength;
                    if (buf[next - 1] != '\n') out[outLength++] = '\n';
                }
                pos = next;
            }
            if (eof) end = true;
            System.arraycopy(buf, pos, buf, 0, length - pos);
            length -= pos;
        }
        if (open != null) open[1] = outLength;
        return new Kept(Arrays.copyOf(out, outLength), blocks, version);
    }

    /** True when this database holds the device names of every vendor in {@code vendors}. */
    public boolean hasDeviceNamesOf(Set<Integer> vendors) {
        return deviceVendors.map(v -> v.containsAll(vendors)).orElse(true);
    }

    /** The vendors whose device names this database holds; empty: all of them. */
    public Optional<Set<Integer>> deviceVendors() {
        return deviceVendors;
    }

    /** Four hex digits at {@code at} (before {@code limit}) as a number, or -1. */
    private static int hex4(byte[] t, int at, int limit) {
        if (at + 4 > limit) return -1;
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
        return origin.source();
    }

    /** Where the names come from, the version and why this copy. */
    public Origin origin() {
        return origin;
    }

    public Optional<String> vendorName(int vendor) {
        int[] block = vendorBlocks.get(vendor);
        if (block == null) return Optional.empty();
        int end = lineEnd(block[0]);
        return Optional.of(name(block[0] + 4, end)).filter(s -> !s.isEmpty());
    }

    /** The device's name; the vendor must be one whose device names this database holds ({@link #hasDeviceNamesOf}). */
    public Optional<String> deviceName(int vendor, int device) {
        if (!hasDeviceNamesOf(Set.of(vendor))) {
            throw new IllegalArgumentException(String.format("%s was read without the device names of vendor %04x", origin.source(), vendor));
        }
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
                int id = hex4(text, pos + 1, eol);
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

    /** Names it, with what it holds: vendors, and bytes of kept lines (the heap it costs). */
    @Override
    public String toString() {
        return "PciIds[" + origin.describe() + ", " + vendorBlocks.size() + " vendors, " + text.length + " bytes held]";
    }
}
