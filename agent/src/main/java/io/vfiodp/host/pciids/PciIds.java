package io.vfiodp.host.pciids;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
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
 * a small part of the file; holding the whole database, even without the dropped lines, was most
 * of its live heap, and reading it into one array before filtering put garbage into the old
 * generation at start. A device's name is looked for in its vendor's block the first time it is
 * asked for, and remembered: a host has a few distinct models, and parsing all of NVIDIA's
 * device lines into a map on the first look-up was most of the policy's first pass, interpreted
 * (docs/benchmarks.md, "Choices in the code").
 *
 * <p>Safe for concurrent look-ups: the cache is a concurrent map of immutable values.
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
    /** (vendor << 16 | device) → its name, once looked up. */
    private final Map<Integer, Optional<String>> deviceNames = new ConcurrentHashMap<>();

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

    /** As {@link #load(Optional, Set)}, without the log line: for a command whose own output says which copy it used. */
    public static PciIds loadQuietly(Optional<Path> explicit, Set<Integer> deviceVendors) throws IOException {
        return load(explicit, SYSTEM_LOCATIONS, Optional.of(Set.copyOf(deviceVendors)));
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
        PciIdsLines.Kept kept;
        // closing the inflater's stream frees its native memory now rather than when a GC finds it
        try (InputStream plain = gzip ? new GZIPInputStream(in, CHUNK) : in) {
            kept = PciIdsLines.keep(plain, deviceVendors, CHUNK);
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

    /** True when this database holds the device names of every vendor in {@code vendors}. */
    public boolean hasDeviceNamesOf(Set<Integer> vendors) {
        return deviceVendors.map(v -> v.containsAll(vendors)).orElse(true);
    }

    /** The vendors whose device names this database holds; empty: all of them. */
    public Optional<Set<Integer>> deviceVendors() {
        return deviceVendors;
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
        // ids are 16 bits: no vendor line can name another, and the key below holds both
        if ((vendor | device) >>> 16 != 0) return Optional.empty();
        return deviceNames.computeIfAbsent(vendor << 16 | device, key -> findDevice(vendor, device));
    }

    /**
     * The name on the first device line of {@code vendor}'s block with id {@code device} and a
     * name (a later line with the same id is ignored, as when the block was read into a map).
     */
    private Optional<String> findDevice(int vendor, int device) {
        int[] block = vendorBlocks.get(vendor);
        if (block == null) return Optional.empty();
        int end = block[1];
        int pos = lineEnd(block[0]) + 1;
        while (pos < end) {
            int eol = lineEnd(pos);
            if (t(pos) == '\t' && pos + 1 < eol && t(pos + 1) != '\t' && PciIdsLines.hex4(text, pos + 1, eol) == device
                    && pos + 5 < eol && t(pos + 5) == ' ') {
                String name = name(pos + 5, eol);
                if (!name.isEmpty()) return Optional.of(name);
            }
            pos = eol + 1;
        }
        return Optional.empty();
    }

    private byte t(int i) {
        return text[i];
    }

    private int lineEnd(int from) {
        return PciIdsLines.lineEnd(text, from, text.length);
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
