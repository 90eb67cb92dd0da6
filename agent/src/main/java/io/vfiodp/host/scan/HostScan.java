package io.vfiodp.host.scan;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.VgpuVf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * A {@link HostSnapshot} together with the per-device reads it was assembled from, so that
 * {@link SysfsScanner#rescan} can read again only the devices an event names and assemble a
 * snapshot equal to a full scan's. Immutable.
 */
public final class HostScan {

    private final Parts parts;
    private final HostSnapshot snapshot;

    /** A scan assembled from all its reads. */
    HostScan(Parts parts) {
        this(parts, assemble(parts));
    }

    private HostScan(Parts parts, HostSnapshot snapshot) {
        this.parts = parts;
        this.snapshot = snapshot;
    }

    /**
     * The scan of {@code parts}, which differ from {@code previous}'s in the functions, mdevs and
     * groups named only (and in /dev): the previous snapshot with those entries replaced, which
     * costs a fraction of assembling a large host anew.
     */
    static HostScan patch(HostScan previous, Parts parts, Set<PciAddress> functions, Set<String> mdevs, Set<Integer> groups) {
        HostSnapshot before = previous.snapshot();
        TreeMap<PciAddress, PciFunction> fns = new TreeMap<>(before.functions());
        TreeMap<PciAddress, MdevParent> parents = new TreeMap<>(before.mdevParents());
        for (PciAddress a : functions) {
            fns.remove(a);
            parents.remove(a);
            FunctionRead r = parts.functions().get(a);
            if (r == null) continue;
            r.found().ifPresent(f -> fns.put(a, f.function()));
            r.mdevParent().ifPresent(p -> parents.put(a, p));
        }
        TreeMap<String, MdevInstance> instances = new TreeMap<>(before.mdevs());
        for (String uuid : mdevs) {
            instances.remove(uuid);
            if (parts.mdevs().get(uuid) instanceof MdevReader.InstanceRead.Read read) instances.put(uuid, read.instance());
        }
        TreeMap<Integer, IommuGroup> iommuGroups = new TreeMap<>(before.groups());
        for (int g : groups) {
            iommuGroups.remove(g);
            GroupRead read = parts.groups().get(g);
            if (read != null) iommuGroups.put(g, group(g, read, fns));
        }
        List<ScanProblem> problems = problems(parts);
        TreeMap<PciAddress, VgpuVf> vgpuVfs = vgpuVfs(parts, problems);
        problems.sort(PROBLEM_ORDER);
        return new HostScan(parts, new HostSnapshot(fns, iommuGroups, parents, instances, vgpuVfs, parts.devNodes(), problems));
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

        /** Why the members could not be read: the last problem, which ended the read, when there are no members. */
        Optional<ScanProblem> membersUnread() {
            return members.isPresent() || problems.isEmpty() ? Optional.empty() : Optional.of(problems.getLast());
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
        return new TreeMap<>(groupDirs(functions, mdevs, g -> true));
    }

    /** {@link #groupDirs} of the groups {@code wanted} accepts only. */
    static Map<Integer, String> groupDirs(SortedMap<PciAddress, FunctionRead> functions,
                                          SortedMap<String, MdevReader.InstanceRead> mdevs, IntPredicate wanted) {
        Map<Integer, String> dirs = new HashMap<>();
        for (FunctionRead r : functions.values()) {
            if (r.scanned() instanceof ScannedFunction.Found f && f.groupDir().isPresent()) {
                int group = f.function().iommuGroup().getAsInt();
                if (wanted.test(group)) dirs.putIfAbsent(group, f.groupDir().get());
            }
        }
        for (MdevReader.InstanceRead r : mdevs.values()) {
            if (r instanceof MdevReader.InstanceRead.Read read && wanted.test(read.instance().iommuGroup())) {
                dirs.putIfAbsent(read.instance().iommuGroup(), read.groupDir());
            }
        }
        return dirs;
    }

    // A plain lambda, linked ahead of time in the AOT cache: Comparator.comparing and thenComparing make
    // serializable lambdas, which the JVM spins at run time, interpreted, in serve's first scan
    // (docs/benchmarks.md, "Choices in the code").
    private static final Comparator<ScanProblem> PROBLEM_ORDER = (a, b) -> {
        int byPath = a.path().compareTo(b.path());
        return byPath != 0 ? byPath : a.reason().compareTo(b.reason());
    };

    private static HostSnapshot assemble(Parts parts) {
        if (parts.listing() instanceof FunctionListing.Unusable unusable && unusable.problem().path().equals(".")) {
            // the sysfs root itself: nothing else was read
            List<ScanProblem> problems = new ArrayList<>(parts.devProblems());
            problems.add(unusable.problem());
            return new HostSnapshot(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
                    parts.devNodes(), problems);
        }
        TreeMap<PciAddress, PciFunction> functions = new TreeMap<>();
        TreeMap<PciAddress, MdevParent> mdevParents = new TreeMap<>();
        for (FunctionRead r : parts.functions().values()) {
            r.found().ifPresent(f -> functions.put(f.function().address(), f.function()));
            r.mdevParent().ifPresent(p -> mdevParents.put(p.address(), p));
        }
        TreeMap<String, MdevInstance> mdevs = new TreeMap<>();
        for (MdevReader.InstanceRead r : parts.mdevs().values()) {
            if (r instanceof MdevReader.InstanceRead.Read read) mdevs.put(read.instance().uuid(), read.instance());
        }
        TreeMap<Integer, IommuGroup> groups = new TreeMap<>();
        parts.groups().forEach((number, read) -> groups.put(number, group(number, read, functions)));
        List<ScanProblem> problems = problems(parts);
        TreeMap<PciAddress, VgpuVf> vgpuVfs = vgpuVfs(parts, problems);
        problems.sort(PROBLEM_ORDER);
        return new HostSnapshot(functions, groups, mdevParents, mdevs, vgpuVfs, parts.devNodes(), problems);
    }

    /** The group's members as read, or, when its directory was unreadable, the functions that link to it. */
    private static IommuGroup group(int number, GroupRead read, SortedMap<PciAddress, PciFunction> functions) {
        List<PciAddress> members = read.members().orElseGet(() -> functions.values().stream()
                .filter(fn -> fn.iommuGroup().isPresent() && fn.iommuGroup().getAsInt() == number)
                .map(PciFunction::address).toList());
        return new IommuGroup(number, members, read.membersUnread());
    }

    /** Every read's problems, unsorted; the VF names' problems are added by {@link #vgpuVfs}. */
    private static List<ScanProblem> problems(Parts parts) {
        List<ScanProblem> problems = new ArrayList<>(parts.devProblems());
        // instanceof, not a pattern switch: a type switch's class is generated at its first run, in serve's first scan
        // (docs/benchmarks.md, "Choices in the code")
        if (parts.listing() instanceof FunctionListing.Unusable u) problems.add(u.problem());
        else problems.addAll(((FunctionListing.Listed) parts.listing()).notAddresses());
        for (FunctionRead r : parts.functions().values()) problems.addAll(r.problems());
        if (parts.mdevListing() instanceof MdevReader.Listing.Unreadable u) problems.add(u.problem());
        for (MdevReader.InstanceRead r : parts.mdevs().values()) {
            if (r instanceof MdevReader.InstanceRead.Failed failed) problems.add(failed.problem());
        }
        for (GroupRead g : parts.groups().values()) problems.addAll(g.problems());
        return problems;
    }

    /** The vGPU VFs with their types' names, looked up across siblings. */
    private static TreeMap<PciAddress, VgpuVf> vgpuVfs(Parts parts, List<ScanProblem> problems) {
        List<VgpuVfReader.RawVf> raw = new ArrayList<>();
        for (FunctionRead r : parts.functions().values()) r.vf().ifPresent(raw::add);
        TreeMap<PciAddress, VgpuVf> vfs = new TreeMap<>();
        for (VgpuVf vf : VgpuVfReader.resolve(raw, problems)) vfs.put(vf.address(), vf);
        return vfs;
    }
}
