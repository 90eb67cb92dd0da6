package io.vfiodp.host.scan;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One incremental rescan (see {@link SysfsScanner#rescan}): the previous reads, with the
 * changed devices and their dependents read again. Working state lives here, for one run.
 */
final class Rescan {

    private final DeviceReads reads;
    private final PciFunctionReader functionReader;
    private final String devicesDir;
    private final HostScan previousScan;
    private final HostScan.Parts previous;
    private final Set<String> rereadMdevs = new HashSet<>();

    private final Set<Integer> touchedGroups = new HashSet<>();
    private final TreeMap<PciAddress, HostScan.FunctionRead> functions;
    private final TreeMap<String, MdevReader.InstanceRead> mdevs;

    Rescan(DeviceReads reads, PciFunctionReader functionReader, String devicesDir, HostScan previous) {
        this.reads = reads;
        this.functionReader = functionReader;
        this.devicesDir = devicesDir;
        this.previousScan = previous;
        this.previous = previous.parts();
        this.functions = new TreeMap<>(previous.parts().functions());
        this.mdevs = new TreeMap<>(previous.parts().mdevs());
    }

    HostScan run(ChangedDevices changed, DevNodes devNodes, List<ScanProblem> devProblems) {
        Set<PciAddress> reread = rereadFunctions(changed.functions());
        MdevReader.Listing mdevListing = rereadMdevs(changed.mdevs(), reread);
        // A group exists while a function or mdev links to it, and its directory is the link of
        // the lowest such function: both change only through the devices read again, whose
        // groups were all touched.
        TreeMap<Integer, HostScan.GroupRead> groups = new TreeMap<>(previous.groups());
        if (!touchedGroups.isEmpty()) {
            Map<Integer, String> dirs = HostScan.groupDirs(functions, mdevs, touchedGroups::contains);
            for (int number : touchedGroups) {
                String dir = dirs.get(number);
                if (dir == null) groups.remove(number);
                else groups.put(number, reads.group(number, dir));
            }
        }
        HostScan.Parts parts = new HostScan.Parts(devNodes, devProblems, previous.listing(), functions, mdevListing, mdevs, groups);
        return HostScan.patch(previousScan, parts, reread, rereadMdevs, touchedGroups);
    }

    /**
     * The named functions, and the PF of every VF among them (its virtfn links changed too). The
     * groups they were and are in are touched: by their links, and by the group listings that
     * named them (a function the previous scan skipped has no link to go by).
     */
    private Set<PciAddress> rereadFunctions(Set<PciAddress> named) {
        Set<PciAddress> reread = new HashSet<>();
        Deque<PciAddress> pending = new ArrayDeque<>(named);
        while (!pending.isEmpty()) {
            PciAddress address = pending.poll();
            if (!reread.add(address)) continue;
            previous.groups().forEach((number, group) -> {
                if (group.members().filter(m -> m.contains(address)).isPresent()) touchedGroups.add(number);
            });
            Optional<HostScan.FunctionRead> before = Optional.ofNullable(functions.remove(address));
            Optional<HostScan.FunctionRead> after = listed(devicesDir, address.toString())
                    ? Optional.of(reads.function(functionReader, address)) : Optional.empty();
            after.ifPresent(r -> functions.put(address, r));
            for (Optional<HostScan.FunctionRead> r : List.of(before, after)) {
                r.flatMap(HostScan.FunctionRead::found).ifPresent(f -> {
                    f.function().iommuGroup().ifPresent(touchedGroups::add);
                    f.function().physfn().ifPresent(pending::add);
                });
            }
        }
        return reread;
    }

    /** The named mdevs and those of the functions read again; every instance when the mdev bus itself changed. */
    private MdevReader.Listing rereadMdevs(Set<String> named, Set<PciAddress> rereadFunctions) {
        Set<String> toRead = new TreeSet<>(named);
        for (Map.Entry<String, MdevReader.InstanceRead> e : previous.mdevs().entrySet()) {
            if (e.getValue() instanceof MdevReader.InstanceRead.Read read && rereadFunctions.contains(read.instance().parent())) {
                toRead.add(e.getKey());
            }
        }
        if (toRead.isEmpty()) return previous.mdevListing();
        MdevReader.Listing now = reads.mdev().list();
        if (now instanceof MdevReader.Listing.Listed listed && previous.mdevListing() instanceof MdevReader.Listing.Listed before
                && listed.dir().equals(before.dir())) {
            rereadMdevs.addAll(toRead);
            for (String uuid : toRead) {
                touch(Optional.ofNullable(mdevs.remove(uuid)));
                if (listed(listed.dir(), uuid)) {
                    MdevReader.InstanceRead read = reads.mdev().readInstance(listed.dir(), uuid);
                    mdevs.put(uuid, read);
                    touch(Optional.of(read));
                }
            }
            return now;
        }
        // The mdev bus appeared, vanished or moved: every instance is new to us.
        rereadMdevs.addAll(mdevs.keySet());
        mdevs.values().forEach(r -> touch(Optional.of(r)));
        mdevs.clear();
        if (now instanceof MdevReader.Listing.Listed listed) {
            rereadMdevs.addAll(listed.uuids());
            for (String uuid : listed.uuids()) {
                MdevReader.InstanceRead read = reads.mdev().readInstance(listed.dir(), uuid);
                mdevs.put(uuid, read);
                touch(Optional.of(read));
            }
        }
        return now;
    }

    private void touch(Optional<MdevReader.InstanceRead> read) {
        if (read.orElse(null) instanceof MdevReader.InstanceRead.Read r) touchedGroups.add(r.instance().iommuGroup());
    }

    /** Whether the real directory {@code dir} has an entry {@code name}, link or not: what its listing shows. */
    static boolean listed(String dir, String name) {
        return Files.exists(Path.of(ConfinedTree.child(dir, name)), LinkOption.NOFOLLOW_LINKS);
    }
}
