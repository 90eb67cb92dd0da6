package io.vfiodp.host;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An IOMMU group and its member functions ({@code kernel/iommu_groups/<n>/devices}), sorted.
 *
 * @param membersUnread why the group's own list of members could not be read, when it could not: the
 *                      members are then the functions known to link to the group, and others may hide
 */
public record IommuGroup(int number, List<PciAddress> members, Optional<ScanProblem> membersUnread) {
    public IommuGroup {
        if (number < 0) throw new IllegalArgumentException("negative IOMMU group " + number);
        members = sortedDistinct(members);
        Objects.requireNonNull(membersUnread, "membersUnread");
    }

    /** A group whose members were read from the kernel's list. */
    public IommuGroup(int number, List<PciAddress> members) {
        this(number, members, Optional.empty());
    }

    /**
     * {@code members} sorted, each once. A loop, not a stream: a scan makes a group for every
     * IOMMU group of the host, and serve's first scan runs interpreted, where a stream pipeline
     * per group costs a large node's first scan dearly (docs/benchmarks.md, "Choices in the code").
     */
    private static List<PciAddress> sortedDistinct(List<PciAddress> members) {
        PciAddress[] sorted = members.toArray(new PciAddress[0]);
        Arrays.sort(sorted);
        List<PciAddress> distinct = new ArrayList<>(sorted.length);
        for (PciAddress a : sorted) {
            // compareTo, which orders by all four parts, tells equal addresses apart as equals does
            if (distinct.isEmpty() || distinct.getLast().compareTo(a) != 0) distinct.add(a);
        }
        return List.copyOf(distinct);
    }
}
