package io.vfiodp.host;

import java.util.List;

/** An IOMMU group and its member functions ({@code kernel/iommu_groups/<n>/devices}), sorted. */
public record IommuGroup(int number, List<PciAddress> members) {
    public IommuGroup {
        if (number < 0) throw new IllegalArgumentException("negative IOMMU group " + number);
        members = members.stream().sorted().distinct().toList();
    }
}
