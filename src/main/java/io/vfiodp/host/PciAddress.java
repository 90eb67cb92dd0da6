package io.vfiodp.host;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI function address as sysfs prints it: {@code DDDD:BB:SS.F}, lower-case hex, 4-digit
 * domain. Parsing is strict: KubeVirt hands addresses to libvirt by string, so a short or
 * upper-case form would never match what the kernel shows.
 */
public record PciAddress(int domain, int bus, int slot, int function) implements Comparable<PciAddress> {

    private static final Pattern FORMAT =
            Pattern.compile("([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\\.([0-7])");
    private static final Comparator<PciAddress> ORDER = Comparator.comparingInt(PciAddress::domain)
            .thenComparingInt(PciAddress::bus)
            .thenComparingInt(PciAddress::slot)
            .thenComparingInt(PciAddress::function);

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

    public static Optional<PciAddress> tryParse(String text) {
        if (text == null) return Optional.empty();
        Matcher m = FORMAT.matcher(text);
        if (!m.matches()) return Optional.empty();
        int slot = Integer.parseInt(m.group(3), 16);
        if (slot > 0x1f) return Optional.empty();
        return Optional.of(new PciAddress(Integer.parseInt(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                slot, Integer.parseInt(m.group(4))));
    }

    /** The same device, another function number (for multifunction cards). */
    public PciAddress withFunction(int fn) {
        return new PciAddress(domain, bus, slot, fn);
    }

    public boolean sameSlot(PciAddress other) {
        return domain == other.domain && bus == other.bus && slot == other.slot;
    }

    @Override
    public int compareTo(PciAddress o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return String.format("%04x:%02x:%02x.%x", domain, bus, slot, function);
    }
}
