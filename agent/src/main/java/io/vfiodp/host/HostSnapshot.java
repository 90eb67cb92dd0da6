package io.vfiodp.host;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable picture of the host's VFIO-relevant state, as one scan saw it. Entries the scan
 * could not read are absent and explained in {@link #problems()}.
 */
public record HostSnapshot(
        SortedMap<PciAddress, PciFunction> functions,
        SortedMap<Integer, IommuGroup> groups,
        SortedMap<PciAddress, MdevParent> mdevParents,
        SortedMap<String, MdevInstance> mdevs,
        SortedMap<PciAddress, VgpuVf> vgpuVfs,
        DevNodes devNodes,
        List<ScanProblem> problems) {

    public static final HostSnapshot EMPTY = new HostSnapshot(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
            new TreeMap<>(), new TreeMap<>(), DevNodes.NONE, List.of());

    public HostSnapshot {
        functions = Collections.unmodifiableSortedMap(new TreeMap<>(functions));
        groups = Collections.unmodifiableSortedMap(new TreeMap<>(groups));
        mdevParents = Collections.unmodifiableSortedMap(new TreeMap<>(mdevParents));
        mdevs = Collections.unmodifiableSortedMap(new TreeMap<>(mdevs));
        vgpuVfs = Collections.unmodifiableSortedMap(new TreeMap<>(vgpuVfs));
        problems = List.copyOf(problems);
    }

    public Optional<PciFunction> function(PciAddress address) {
        return Optional.ofNullable(functions.get(address));
    }

    public Optional<IommuGroup> group(int number) {
        return Optional.ofNullable(groups.get(number));
    }
}
