package io.vfiodp.host;

import java.util.Optional;

/**
 * A PCI function address as sysfs prints it: {@code DDDD:BB:SS.F}, lower-case hex, 4-digit
 * domain. Parsing is strict: KubeVirt hands addresses to libvirt by string, so a short or
 * upper-case form would never match what the kernel shows.
 */
public record PciAddress(int domain, int bus, int slot, int function) implements Comparable<PciAddress> {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    public PciAddress {
        if (domain < 0 || domain > 0xffff) throw new IllegalArgumentException("PCI domain out of range: " + domain);
        if (bus < 0 || bus > 0xff) throw new IllegalArgumentException("PCI bus out of range: " + bus);
        if (slot < 0 || slot > 0x1f) throw new IllegalArgumentException("PCI slot out of range: " + slot);
        if (function < 0 || function > 7) throw new IllegalArgumentException("PCI function out of range: " + function);
    }

    /** Parses {@code DDDD:BB:SS.F}; throws with the offending text otherwise. */
    public static PciAddress parse(String text) {
        return tryParse(text).orElseThrow(() -> new IllegalArgumentException(
                "not a PCI address (expected DDDD:BB:SS.F, lower-case hex): '" + text + "'"));
    }

    /**
     * Parses {@code DDDD:BB:SS.F}, or empty. Written out by hand rather than as a regular
     * expression: a host scan parses every directory name under {@code bus/pci/devices} and
     * every link target, thousands per scan.
     */
    public static Optional<PciAddress> tryParse(String text) {
        if (text == null || text.length() != 12 || text.charAt(4) != ':' || text.charAt(7) != ':' || text.charAt(10) != '.') {
            return Optional.empty();
        }
        int domain = hex(text, 0, 4);
        int bus = hex(text, 5, 7);
        int slot = hex(text, 8, 10);
        char fn = text.charAt(11);
        if (domain < 0 || bus < 0 || slot < 0 || slot > 0x1f || fn < '0' || fn > '7') return Optional.empty();
        return Optional.of(new PciAddress(domain, bus, slot, fn - '0'));
    }

    /** Lower-case hex digits only, as sysfs prints them; -1 otherwise. */
    private static int hex(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            int digit;
            if (c >= '0' && c <= '9') digit = c - '0';
            else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
            else return -1;
            value = value * 16 + digit;
        }
        return value;
    }

    /** The same device, another function number (for multifunction cards). */
    public PciAddress withFunction(int fn) {
        return new PciAddress(domain, bus, slot, fn);
    }

    public boolean sameSlot(PciAddress other) {
        return domain == other.domain && bus == other.bus && slot == other.slot;
    }

    /** Domain, bus, slot, function packed in that order of significance; compare unsigned (domain uses the top bit). */
    private int ordinal() {
        return domain << 16 | bus << 8 | slot << 3 | function;
    }

    @Override
    public int compareTo(PciAddress o) {
        return Integer.compareUnsigned(ordinal(), o.ordinal());
    }

    /*
     * equals and hashCode written out, exactly as a record's are generated (components compared with
     * ==; hash = 31 * previous + component, from 0), so that every hash order stays as it was. The
     * generated ones run through a chain of method handles, interpreted in the first pass, where the
     * policy's group checks call them for every function; here they are a few bytecodes
     * (docs/benchmarks.md, "Choices in the code").
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof PciAddress other && domain == other.domain && bus == other.bus && slot == other.slot
                && function == other.function;
    }

    @Override
    public int hashCode() {
        return ((domain * 31 + bus) * 31 + slot) * 31 + function;
    }

    @Override
    public String toString() {
        char[] c = {
            HEX[domain >> 12 & 0xf], HEX[domain >> 8 & 0xf], HEX[domain >> 4 & 0xf], HEX[domain & 0xf], ':',
            HEX[bus >> 4 & 0xf], HEX[bus & 0xf], ':',
            HEX[slot >> 4 & 0xf], HEX[slot & 0xf], '.', HEX[function]
        };
        return new String(c);
    }
}
