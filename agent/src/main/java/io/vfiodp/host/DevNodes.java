package io.vfiodp.host;

import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the {@code /dev} side offers for VFIO.
 *
 * @param vfioContainer  {@code /dev/vfio/vfio} exists
 * @param groupNodes     IOMMU groups with a {@code /dev/vfio/<n>} node
 * @param iommu          {@code /dev/iommu} exists (iommufd)
 * @param vfioCdevs      names under {@code /dev/vfio/devices/} ({@code vfio0}, …)
 */
public record DevNodes(boolean vfioContainer, SortedSet<Integer> groupNodes, boolean iommu, SortedSet<String> vfioCdevs) {
    public static final DevNodes NONE = new DevNodes(false, new TreeSet<>(), false, new TreeSet<>());

    public DevNodes {
        groupNodes = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(groupNodes));
        vfioCdevs = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(vfioCdevs));
    }

    public boolean hasGroupNode(int group) {
        return groupNodes.contains(group);
    }

    public static DevNodes of(boolean container, Set<Integer> groups, boolean iommu, Set<String> cdevs) {
        return new DevNodes(container, new TreeSet<>(groups), iommu, new TreeSet<>(cdevs));
    }
}
