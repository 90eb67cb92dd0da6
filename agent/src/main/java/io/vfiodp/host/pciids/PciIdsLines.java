package io.vfiodp.host.pciids;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The part of a pci.ids stream the plugin keeps, read a chunk at a time: the vendor lines, and the
 * device lines of the vendors asked for (a small part of the file for NVIDIA), each vendor's
 * block indexed as it is kept, so that the rest never takes heap.
 *
 * <p>{@code serve} reads the file once at start, before the JIT has compiled anything of it: a
 * loop that looks at every byte ran interpreted for most of the file. Here the bytes are looked at
 * in two small methods, {@link #lineEnd} and {@link #skipIndented}, which are called so often that
 * they compile early in the file, and the block of a vendor whose device lines are not kept
 * (almost all of them) is passed over in one call, so that the loop over lines, which stays
 * interpreted, turns once per kept line and skipped block rather than once per line
 * (docs/benchmarks.md, "Choices in the code").
 */
final class PciIdsLines {

    private PciIdsLines() {}

    /** The lines kept, where each vendor's block of them starts and ends (vendor id → {start, end}), and the header's version. */
    record Kept(byte[] text, Map<Integer, int[]> vendorBlocks, Optional<String> version) {}

    /**
     * The vendor lines, and the device lines (one tab) of the vendors {@code deviceVendors}
     * holds, up to the device-class section; read a chunk at a time, indexed as they are kept.
     */
    static Kept keep(InputStream in, Optional<Set<Integer>> deviceVendors, int chunk) throws IOException {
        byte[] buf = new byte[chunk];
        byte[] out = new byte[deviceVendors.isPresent() ? chunk : 16 * chunk];
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
                byte first = buf[pos];
                if (first == '\t' && !keepDevices) {
                    // device and subsystem lines of a vendor not asked for: nothing in them is kept
                    int after = skipIndented(buf, pos, length);
                    if (after > pos) {
                        pos = after;
                        continue;
                    }
                    // else an indented line whose end is not read yet, or the last line of the file: as any other line
                }
                int eol = lineEnd(buf, pos, length);
                if (eol == length && !eof) break; // the rest of this line is in the next chunk
                int next = Math.min(eol + 1, length);
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
                        keepDevices = deviceVendors.isEmpty() || deviceVendors.get().contains(id);
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

    /** Where the line at {@code from} ends: the index of its {@code '\n'}, or {@code limit} when there is none before it. */
    static int lineEnd(byte[] t, int from, int limit) {
        int i = from;
        while (i < limit && t[i] != '\n') i++;
        return i;
    }

    /**
     * The start of the first line at or after {@code from} that does not begin with a tab, or of
     * the first line whose {@code '\n'} is not before {@code limit}: every whole line in between
     * begins with a tab.
     */
    static int skipIndented(byte[] t, int from, int limit) {
        int pos = from;
        while (pos < limit && t[pos] == '\t') {
            int eol = lineEnd(t, pos, limit);
            if (eol == limit) break;
            pos = eol + 1;
        }
        return pos;
    }

    /** Four hex digits at {@code at} (before {@code limit}) as a number, or -1. */
    static int hex4(byte[] t, int at, int limit) {
        if (at + 4 > limit) return -1;
        int v = 0;
        for (int i = at; i < at + 4; i++) {
            int d = hexDigit(t[i]);
            if (d < 0) return -1;
            v = (v << 4) | d;
        }
        return v;
    }

    /** The value of an ASCII hex digit of either case, or -1: {@link Character#digit(int, int)} for radix 16 on a byte, without its calls. */
    private static int hexDigit(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        return -1;
    }
}
