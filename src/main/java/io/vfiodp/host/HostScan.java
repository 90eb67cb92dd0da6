package io.vfiodp.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link HostSnapshot} together with the per-device reads it was assembled from, so that
 * {@link SysfsScanner#rescan} can read again only the devices an event names and assemble a
 * snapshot equal to a full scan's. Immutable.
 */
public final class HostScan {

    private final Parts parts;
    private final HostSnapshot snapshot;

    HostScan(Parts parts) {
        this.parts = parts;
        this.snapshot = assemble(parts);
    }

    public HostSnapshot snapshot() {
        return snapshot;
    }

    Parts parts() {
        return parts;
    }

    /** What {@code bus/pci/devices} gave: the sysfs root or the directory unusable, or its entries. */
    sealed interface FunctionListing {
        record Unusable(ScanProblem problem) implements FunctionListing {}

        /** @param notAddresses problems for the entries that are no PCI address */
        record Listed(List<ScanProblem> notAddresses) implements FunctionListing {
            public Listed {
                notAddresses = List.copyOf(notAddresses);
            }
        }
    }

    /**
     * One function as read: the function or why it was skipped, its mdev types and vGPU files,
     * and the problems of all three.
     */
    record FunctionRead(ScannedFunction scanned, Optional<MdevParent> mdevParent, Optional<VgpuVfReader.RawVf> vf,
                        List<ScanProblem> problems) {
        FunctionRead {
            problems = List.copyOf(problems);
        }

        Optional<ScannedFunction.Found> found() {
            return scanned instanceof ScannedFunction.Found f ? Optional.of(f) : Optional.empty();
        }
    }

    /** One IOMMU group as read from {@code dir}: its members, or none when unreadable (then taken from the functions). */
    record GroupRead(String dir, Optional<List<PciAddress>> members, List<ScanProblem> problems) {
        GroupRead {
            members = members.map(List::copyOf);
            problems = List.copyOf(problems);
        }
    }

    record Parts(DevNodes devNodes, List<ScanProblem> devProblems, FunctionListing listing,
                 SortedMap<PciAddress, FunctionRead> functions, MdevReader.Listing mdevListing,
                 SortedMap<String, MdevReader.InstanceRead> mdevs, SortedMap<Integer, GroupRead> groups) {
        Parts {
            devProblems = List.copyOf(devProblems);
            functions = Collections.unmodifiableSortedMap(new TreeMap<>(functions));
            mdevs = Collections.unmodifiableSortedMap(new TreeMap<>(mdevs));
            groups = Collections.unmodifiableSortedMap(new TreeMap<>(groups));
        }
    }

    /**
     * The real directory of each IOMMU group the functions and mdevs link to: the link of the
     * lowest-addressed function in the group, else of the first mdev (UUID order).
     */
    static TreeMap<Integer, String> groupDirs(SortedMap<PciAddress, FunctionRead> functions,
                                             SortedMap<String, MdevReader.InstanceRead> mdevs) {
        TreeMap<Integer, String> dirs = new TreeMap<>();
        for (FunctionRead r : functions.values()) {
            r.found().ifPresent(f -> f.groupDir().ifPresent(dir -> dirs.putIfAbsent(f.function().iommuGroup().getAsInt(), dir)));
        }
        for (MdevReader.InstanceRead r : mdevs.values()) {
            if (r instanceof MdevReader.InstanceRead.Read read) dirs.putIfAbsent(read.instance().iommuGroup(), read.groupDir());
        }
        return dirs;
    }

    private static HostSnapshot assemble(Parts parts) {
        List<ScanProblem> problems = new ArrayList<>(parts.devProblems());
        if (parts.listing() instanceof FunctionListing.Unusable unusable && unusable.problem().path().equals(".")) {
            // the sysfs root itself: nothing else was read
            problems.add(unusable.problem());
            return new HostSnapshot(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
                    parts.devNodes(), problems);
        }
        switch (parts.listing()) {
            case FunctionListing.Unusable u -> problems.add(u.problem());
            case FunctionListing.Listed l -> problems.addAll(l.notAddresses());
        }

        TreeMap<PciAddress, PciFunction> functions = new TreeMap<>();
        TreeMap<PciAddress, MdevParent> mdevParents = new TreeMap<>();
        List<VgpuVfReader.RawVf> raw = new ArrayList<>();
        for (FunctionRead r : parts.functions().values()) {
            problems.addAll(r.problems());
            r.found().ifPresent(f -> functions.put(f.function().address(), f.function()));
            r.mdevParent().ifPresent(p -> mdevParents.put(p.address(), p));
            r.vf().ifPresent(raw::add);
        }

        switch (parts.mdevListing()) {
            case MdevReader.Listing.Unreadable u -> problems.add(u.problem());
            case MdevReader.Listing.Absent a -> { }
            case MdevReader.Listing.Listed l -> { }
        }
        TreeMap<String, MdevInstance> mdevs = new TreeMap<>();
        for (MdevReader.InstanceRead r : parts.mdevs().values()) {
            switch (r) {
                case MdevReader.InstanceRead.Read read -> mdevs.put(read.instance().uuid(), read.instance());
                case MdevReader.InstanceRead.Failed failed -> problems.add(failed.problem());
            }
        }

        TreeMap<PciAddress, VgpuVf> vgpuVfs = new TreeMap<>();
        for (VgpuVf vf : VgpuVfReader.resolve(raw, problems)) vgpuVfs.put(vf.address(), vf);

        TreeMap<Integer, IommuGroup> groups = new TreeMap<>();
        for (Map.Entry<Integer, GroupRead> e : parts.groups().entrySet()) {
            int number = e.getKey();
            GroupRead g = e.getValue();
            problems.addAll(g.problems());
            List<PciAddress> members = g.members().orElseGet(() -> functions.values().stream()
                    .filter(fn -> fn.iommuGroup().isPresent() && fn.iommuGroup().getAsInt() == number)
                    .map(PciFunction::address).toList());
            groups.put(number, new IommuGroup(number, members));
        }

        problems.sort(Comparator.comparing(ScanProblem::path).thenComparing(ScanProblem::reason));
        return new HostSnapshot(functions, groups, mdevParents, mdevs, vgpuVfs, parts.devNodes(), problems);
    }
}
