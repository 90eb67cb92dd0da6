package io.vfiodp.policy;

import io.vfiodp.host.PciAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The IOMMU group is the unit of allocation: VFIO hands a whole group to one owner, so functions
 * that share one (GPUs behind a PCIe switch without ACS, functions behind a PCIe-to-PCI bridge)
 * can only go to one VM together. Of the PCI functions the policy would expose, each shared group
 * is offered as one device, its lowest-addressed function; the others travel with it as
 * companions and are never devices of their own, so the kubelet cannot hand them to two pods.
 */
final class SharedGroups {

    /** A PCI function the policy would expose, and its IOMMU group. */
    record Exposable(PciAddress address, int group) {}

    /**
     * @param leaders the function each shared group is offered as, by group
     * @param mates   the other exposable functions of each shared group, by group, in address order
     */
    record Offer(SortedMap<Integer, PciAddress> leaders, SortedMap<Integer, List<PciAddress>> mates) {}

    private SharedGroups() {}

    static Offer of(Collection<Exposable> exposable) {
        SortedMap<Integer, List<PciAddress>> byGroup = new TreeMap<>();
        for (Exposable e : exposable) byGroup.computeIfAbsent(e.group(), g -> new ArrayList<>()).add(e.address());
        SortedMap<Integer, PciAddress> leaders = new TreeMap<>();
        SortedMap<Integer, List<PciAddress>> mates = new TreeMap<>();
        for (Map.Entry<Integer, List<PciAddress>> e : byGroup.entrySet()) {
            List<PciAddress> members = e.getValue().stream().sorted().toList();
            if (members.size() < 2) continue;
            leaders.put(e.getKey(), members.get(0));
            mates.put(e.getKey(), members.subList(1, members.size()));
        }
        return new Offer(leaders, mates);
    }

    /** What the inventory says on the row of the device a shared group is offered as. */
    static String leaderNote(int group, List<PciAddress> mates) {
        return "IOMMU group " + group + " is offered as this one device: " + join(mates) + (mates.size() == 1 ? " travels" : " travel")
                + " with it as " + (mates.size() == 1 ? "a companion" : "companions")
                + " (VFIO gives a group to one VM only, so they are never devices of their own)";
    }

    /** What the inventory says on the row of a function that travels with the device its group is offered as. */
    static String mateNote(int group, PciAddress leader) {
        return "shares IOMMU group " + group + " with " + leader + ": VFIO gives a group to one VM only, so the group is"
                + " offered as one device, " + leader + ", and this function travels with it";
    }

    private static String join(List<PciAddress> addresses) {
        return String.join(", ", addresses.stream().map(PciAddress::toString).toList());
    }
}
