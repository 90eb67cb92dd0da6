package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Decides, for planned hostdevs and a domain's current devices, which hostdev elements to add
 * and which existing ones to change. Idempotent by construction: a device whose source
 * address or UUID already has a hostdev is never added again, and a GPU that already has a
 * guest slot keeps it.
 */
final class HostdevPlacement {

    sealed interface Result {}

    /**
     * @param additions new hostdev elements in plan order
     * @param changed   existing hostdevs that need rewriting, by ascending index in the domain
     * @param added     aliases of the additions
     * @param updated   aliases of the changed hostdevs
     */
    record Placed(List<HostDev> additions, SortedMap<Integer, HostDev> changed, List<String> added, List<String> updated)
            implements Result {
        Placed {
            additions = List.copyOf(additions);
            changed = Collections.unmodifiableSortedMap(new TreeMap<>(changed));
            added = List.copyOf(added);
            updated = List.copyOf(updated);
        }
    }

    /** Every reason the plan cannot go into this domain. */
    record Blocked(List<String> problems) implements Result {}

    private final List<HostDev> existing;
    private final Map<String, Integer> existingByKey = new HashMap<>();
    private final GuestSlots slots;
    private final Set<String> aliases;
    private final Set<String> placedKeys = new HashSet<>();
    private final List<HostDev> additions = new ArrayList<>();
    private final SortedMap<Integer, HostDev> changed = new TreeMap<>();
    private final List<String> added = new ArrayList<>();
    private final Set<String> updated = new LinkedHashSet<>();
    private final Set<String> problems = new LinkedHashSet<>();

    private HostdevPlacement(List<HostDev> existing, Map<PciAddress, String> guestAddresses, Set<String> aliases) {
        this.existing = existing;
        for (int i = 0; i < existing.size(); i++) {
            int index = i;
            HostdevElements.key(existing.get(i)).ifPresent(k -> existingByKey.putIfAbsent(k, index));
        }
        this.slots = new GuestSlots(guestAddresses);
        this.aliases = new HashSet<>(aliases);
    }

    static Result place(List<PlannedHostdev> plan, List<HostDev> existing, Map<PciAddress, String> guestAddresses, Set<String> aliases) {
        HostdevPlacement p = new HostdevPlacement(existing, guestAddresses, aliases);
        for (PlannedHostdev planned : plan) p.place(planned);
        if (!p.problems.isEmpty()) return new Blocked(List.copyOf(p.problems));
        return new Placed(p.additions, p.changed, p.added, List.copyOf(p.updated));
    }

    private void place(PlannedHostdev planned) {
        String key = HostdevElements.key(planned);
        if (!placedKeys.add(key)) {
            problems.add(planned.origin() + ": device " + key.substring(key.indexOf(':') + 1) + " is planned twice");
            return;
        }
        Integer index = existingByKey.get(key);
        HostDev target;
        if (index != null) {
            target = existing.get(index);
        } else {
            target = HostdevElements.of(planned);
            if (!claimAlias(planned.alias(), planned.origin())) return;
            additions.add(target);
            added.add(planned.alias());
        }
        if (planned instanceof PlannedHostdev.Pci pci && !pci.companions().isEmpty()) {
            attachCompanions(pci, target, index);
        }
    }

    private boolean claimAlias(String alias, String origin) {
        if (!aliases.add(alias)) {
            problems.add(origin + ": alias " + alias + " is already used by another device of the domain");
            return false;
        }
        return true;
    }

    /**
     * Functions of the device's own slot share its guest slot with their host function numbers;
     * group mates from other slots (an IOMMU group spans slots behind a bridge without ACS) get
     * a guest slot per host slot, so none of them can collide with the device's functions.
     */
    private void attachCompanions(PlannedHostdev.Pci gpu, HostDev target, Integer existingIndex) {
        Map<PciAddress, List<PciAddress>> bySlot = new LinkedHashMap<>();
        for (PciAddress companion : gpu.companions()) {
            String key = HostdevElements.key(companion);
            if (existingByKey.containsKey(key) || !placedKeys.add(key)) continue;
            bySlot.computeIfAbsent(companion.withFunction(0), s -> new ArrayList<>()).add(companion);
        }
        List<PciAddress> own = bySlot.remove(gpu.source().withFunction(0));
        if (own != null) {
            guestSlotOf(gpu, target, existingIndex).ifPresent(base -> {
                for (PciAddress companion : own) attach(gpu, companion, base.withFunction(companion.function()));
            });
        }
        bySlot.forEach((hostSlot, functions) -> attachMates(gpu, functions));
    }

    /** Function 0 of the device's guest slot: the one it has, or a free one it is given. */
    private Optional<PciAddress> guestSlotOf(PlannedHostdev.Pci gpu, HostDev target, Integer existingIndex) {
        Optional<PciAddress> current = target.address == null ? Optional.empty()
                : DomainDocument.guestAddress(target.address.type, target.address.domain, target.address.bus,
                        target.address.slot, target.address.function);
        if (current.isPresent()) {
            PciAddress base = current.get();
            if (base.function() != 0) {
                problems.add(gpu.origin() + ": " + gpu.alias() + " sits at guest function " + base.function()
                        + " of its slot; its companions need multifunction='on' on function 0, which another device holds");
                return Optional.empty();
            }
            if (!"on".equals(target.address.multifunction)) {
                target.address.multifunction = "on";
                markChanged(existingIndex, target, gpu.alias());
            }
            return Optional.of(base);
        }
        Optional<PciAddress> free = freeSlotFor(gpu, gpu.alias() + " and its companions");
        free.ifPresent(base -> {
            PciAddress at = base.withFunction(gpu.source().function());
            target.address = HostdevElements.guestPci(at);
            slots.take(at, gpu.alias());
            markChanged(existingIndex, target, gpu.alias());
        });
        return free;
    }

    /**
     * Group mates of one other host slot: with its function 0 among them they keep their host
     * function numbers on a free guest slot; without it each gets a slot of its own at function 0,
     * as a guest only finds a slot's other functions through function 0.
     */
    private void attachMates(PlannedHostdev.Pci gpu, List<PciAddress> functions) {
        boolean withFunctionZero = functions.stream().anyMatch(f -> f.function() == 0);
        if (withFunctionZero) {
            freeSlotFor(gpu, "its group mates " + functions).ifPresent(base -> {
                for (PciAddress mate : functions) attach(gpu, mate, base.withFunction(mate.function()));
            });
        } else {
            for (PciAddress mate : functions) freeSlotFor(gpu, "its group mate " + mate).ifPresent(base -> attach(gpu, mate, base));
        }
    }

    private Optional<PciAddress> freeSlotFor(PlannedHostdev.Pci gpu, String what) {
        Optional<PciAddress> free = slots.freeSlot();
        if (free.isEmpty()) {
            problems.add(gpu.origin() + ": no free guest slot for " + what + ": slots 0x"
                    + Integer.toHexString(GuestSlots.FIRST_SLOT) + "..0x" + Integer.toHexString(GuestSlots.LAST_SLOT)
                    + " of bus 0x00 are all in use");
        }
        return free;
    }

    private void attach(PlannedHostdev.Pci gpu, PciAddress companion, PciAddress at) {
        Optional<String> owner = slots.owner(at);
        if (owner.isPresent()) {
            problems.add(gpu.origin() + ": companion " + companion + " needs guest address " + at + ", which " + owner.get() + " holds");
            return;
        }
        String alias = companion.sameSlot(gpu.source()) ? gpu.alias() + "-fn" + companion.function()
                : String.format("%s-%02x%02x-fn%d", gpu.alias(), companion.bus(), companion.slot(), companion.function());
        if (!claimAlias(alias, gpu.origin())) return;
        HostDev h = HostdevElements.pci(companion, alias);
        h.address = HostdevElements.guestPci(at);
        slots.take(at, alias);
        additions.add(h);
        added.add(alias);
    }

    private void markChanged(Integer existingIndex, HostDev target, String alias) {
        if (existingIndex != null) {
            // KubeVirt leaves mode out and libvirt defaults it; strict readers want it, and an
            // element we rewrite anyway may as well carry it.
            if (target.mode == null) target.mode = "subsystem";
            changed.put(existingIndex, target);
            updated.add(alias);
        }
    }
}
