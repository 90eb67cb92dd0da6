package io.vfiodp.host.scan;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Reads a directory that plays {@code /sys} and one that plays {@code /dev} into a
 * {@link HostSnapshot}. Never throws for a bad entry: the entry is left out and explained in
 * {@link HostSnapshot#problems()}. Never reads outside the two roots, whatever the links say.
 *
 * <p>{@link #fullScan()} reads everything; {@link #rescan} reads again only the devices kernel
 * uevents name, on top of an earlier scan, and gives the same snapshot. Each call is independent
 * (fresh caches; reads on the calling thread, or on a {@link ReaderPool} the caller owns), so
 * one scanner may be used from any thread.
 */
public final class SysfsScanner {

    /** Below this many functions, handing reads to other threads costs more than it saves. */
    private static final int PARALLEL_THRESHOLD = 64;

    private final Path sysRoot;
    private final Path devRoot;
    private final Optional<ReaderPool> readers;
    /** {@code sysRoot} is a sysfs mount, asked once ({@link ConfinedTree#isKernelTree}). */
    private final boolean kernelTree;

    /** A scanner that reads on the calling thread: for one-off scans. */
    public SysfsScanner(Path sysRoot, Path devRoot) {
        this(sysRoot, devRoot, Optional.empty());
    }

    /** A scanner that reads a large host's devices on {@code readers}, which the caller owns and closes after the last scan. */
    public SysfsScanner(Path sysRoot, Path devRoot, ReaderPool readers) {
        this(sysRoot, devRoot, Optional.of(readers));
    }

    private SysfsScanner(Path sysRoot, Path devRoot, Optional<ReaderPool> readers) {
        this.sysRoot = Objects.requireNonNull(sysRoot, "sysRoot");
        this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
        this.readers = Objects.requireNonNull(readers, "readers");
        this.kernelTree = ConfinedTree.isKernelTree(sysRoot);
    }

    public HostSnapshot scan() {
        return fullScan().snapshot();
    }

    /** Reads everything: the snapshot, with the per-device reads a later {@link #rescan} builds on. */
    public HostScan fullScan() {
        List<ScanProblem> devProblems = new ArrayList<>();
        DevNodes devNodes = scanDev(devProblems);
        ConfinedTree sys;
        try {
            sys = ConfinedTree.open(sysRoot, kernelTree);
        } catch (IOException e) {
            return new HostScan(new HostScan.Parts(devNodes, devProblems,
                    new HostScan.FunctionListing.Unusable(new ScanProblem(".", "sysfs root " + whyUnusable(sysRoot, e))),
                    new TreeMap<>(), new MdevReader.Listing.Absent(), new TreeMap<>(), new TreeMap<>()));
        }
        DeviceReads reads = new DeviceReads(sys);

        HostScan.FunctionListing listing;
        TreeMap<PciAddress, HostScan.FunctionRead> functions = new TreeMap<>();
        try {
            String devicesDir = sys.walk("bus/pci/devices");
            String[] names = sys.list(devicesDir);
            List<PciAddress> addresses = new ArrayList<>(names.length);
            List<ScanProblem> notAddresses = new ArrayList<>();
            for (String name : names) {
                Optional<PciAddress> address = PciAddress.tryParse(name);
                if (address.isPresent()) addresses.add(address.get());
                else notAddresses.add(new ScanProblem("bus/pci/devices/" + name, "not a PCI address (expected DDDD:BB:SS.F)"));
            }
            addresses.sort(Comparator.naturalOrder());
            listing = new HostScan.FunctionListing.Listed(notAddresses);
            PciFunctionReader reader = new PciFunctionReader(sys, devicesDir);
            List<HostScan.FunctionRead> read = map(addresses, a -> reads.function(reader, a));
            for (int i = 0; i < read.size(); i++) functions.put(addresses.get(i), read.get(i));
        } catch (EntryUnreadable e) {
            listing = new HostScan.FunctionListing.Unusable(e.toProblem());
        }

        MdevReader.Listing mdevListing = reads.mdev().list();
        TreeMap<String, MdevReader.InstanceRead> mdevs = new TreeMap<>();
        if (mdevListing instanceof MdevReader.Listing.Listed listed) {
            for (String uuid : listed.uuids()) mdevs.put(uuid, reads.mdev().readInstance(listed.dir(), uuid));
        }

        List<Map.Entry<Integer, String>> groupDirs = new ArrayList<>(HostScan.groupDirs(functions, mdevs).entrySet());
        List<HostScan.GroupRead> read = map(groupDirs, e -> reads.group(e.getKey(), e.getValue()));
        TreeMap<Integer, HostScan.GroupRead> groups = new TreeMap<>();
        for (int i = 0; i < read.size(); i++) groups.put(groupDirs.get(i).getKey(), read.get(i));
        return new HostScan(new HostScan.Parts(devNodes, devProblems, listing, functions, mdevListing, mdevs, groups));
    }

    /**
     * Reads again only what {@code changed} names, and what depends on it, on top of {@code
     * previous}: the named functions and mdevs (gone when no longer listed under {@code
     * bus/pci/devices} or {@code bus/mdev/devices}), the PF of a VF read again (its
     * {@code virtfn} links), the mdevs of a function read again, the IOMMU groups any of them
     * was or is in, and {@code /dev}. The result's snapshot equals a full scan's whenever
     * {@code changed} names every device whose own sysfs directory changed since
     * {@code previous}, as the kernel's uevents do. Where {@code previous} could not list the
     * PCI functions, or the sysfs root is unusable now, this is a full scan.
     */
    public HostScan rescan(HostScan previous, ChangedDevices changed) {
        if (!(previous.parts().listing() instanceof HostScan.FunctionListing.Listed)) return fullScan();
        ConfinedTree sys;
        String devicesDir;
        try {
            sys = ConfinedTree.open(sysRoot, kernelTree);
            devicesDir = sys.walk("bus/pci/devices");
        } catch (IOException | EntryUnreadable e) {
            return fullScan();
        }
        List<ScanProblem> devProblems = new ArrayList<>();
        DevNodes devNodes = scanDev(devProblems);
        return new Rescan(new DeviceReads(sys), new PciFunctionReader(sys, devicesDir), devicesDir, previous)
                .run(changed, devNodes, devProblems);
    }

    private static String whyUnusable(Path root, IOException e) {
        if (e instanceof NoSuchFileException) return root + " does not exist";
        if (e instanceof NotDirectoryException) return root + " is not a directory";
        return root + " cannot be read: " + e.getMessage();
    }

    private DevNodes scanDev(List<ScanProblem> problems) {
        try {
            return new DevNodesReader(ConfinedTree.open(devRoot)).read(problems);
        } catch (IOException e) {
            problems.add(new ScanProblem("dev:.", "dev root " + whyUnusable(devRoot, e)));
            return DevNodes.NONE;
        }
    }

    /**
     * Applies {@code read} to every item, in order: on the reader pool when there is one and
     * enough items, else here. {@code read} must not throw checked exceptions; an unexpected
     * runtime exception is a bug in this package and propagates.
     */
    private <T, R> List<R> map(List<T> items, Function<T, R> read) {
        if (items.size() < PARALLEL_THRESHOLD || readers.isEmpty()) return mapInOrder(items, read);
        return readers.get().map(items, read);
    }

    static <T, R> List<R> mapInOrder(List<T> items, Function<T, R> read) {
        List<R> results = new ArrayList<>(items.size());
        for (T item : items) results.add(read.apply(item));
        return results;
    }
}
