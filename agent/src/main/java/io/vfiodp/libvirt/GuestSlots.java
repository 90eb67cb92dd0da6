package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Guest PCI addresses already taken in a domain, and the rule that picks a slot for a GPU
 * that brings its companion functions.
 *
 * <p>The rule: the lowest slot from {@code 0x10} to {@code 0x19} on bus {@code 0x00} of PCI
 * domain {@code 0x0000} (the root bus: {@code pcie.0} on q35, {@code pci.0} on i440fx) of
 * which no function is taken by an explicit {@code <address type='pci'>} in the domain or by
 * an earlier GPU of the same run. Why there:
 * <ul>
 *   <li>Functions only share a slot when the whole card sits at one explicit address: libvirt
 *       would spread address-less hostdevs over separate slots or root ports.</li>
 *   <li>The root bus exists in every x86 domain, so no controller has to be added.</li>
 *   <li>libvirt reserves low slots for itself (host bridge 0x00, q35's VGA 0x01, i440fx's
 *       PIIX3 0x01 and VGA 0x02, root ports it adds from 0x02) and q35's ICH9 functions live at
 *       0x1a..0x1f; 0x10..0x19 is left to explicit placement, and libvirt steers its own
 *       automatic placement around addresses given explicitly.</li>
 *   <li>Lowest-free-first over a fixed range gives the same slots for the same document, so a
 *       second pass of the hook finds what the first one placed.</li>
 * </ul>
 * Devices on the root bus are integrated endpoints on q35: fine for VFIO, but not hot-pluggable,
 * which passthrough GPUs are not in KubeVirt anyway.
 */
final class GuestSlots {

    static final int FIRST_SLOT = 0x10;
    static final int LAST_SLOT = 0x19;

    private final Map<PciAddress, String> taken;

    GuestSlots(Map<PciAddress, String> taken) {
        this.taken = new LinkedHashMap<>(taken);
    }

    /** Who holds {@code address}, if anyone. */
    Optional<String> owner(PciAddress address) {
        return Optional.ofNullable(taken.get(address));
    }

    void take(PciAddress address, String owner) {
        taken.putIfAbsent(address, owner);
    }

    /** Function 0 of the first free slot by the rule above, or empty when all ten are used. */
    Optional<PciAddress> freeSlot() {
        for (int slot = FIRST_SLOT; slot <= LAST_SLOT; slot++) {
            PciAddress base = new PciAddress(0, 0, slot, 0);
            if (taken.keySet().stream().noneMatch(a -> a.sameSlot(base))) return Optional.of(base);
        }
        return Optional.empty();
    }
}
