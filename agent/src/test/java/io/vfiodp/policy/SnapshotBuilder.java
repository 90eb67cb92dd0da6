package io.vfiodp.policy;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Hand-built host snapshots for policy tests. IOMMU groups are derived from the functions'
 * groups (plus extra members when given); every group has its {@code /dev/vfio/<n>} node unless
 * a test removes it.
 */
public final class SnapshotBuilder {

    public final class Fn {
        final PciAddress address;
        int vendor = 0x10de;
        int device;
        int subsystemVendor;
        int subsystemDevice;
        int classCode = 0x030200;
        Optional<String> driver = Optional.of("vfio-pci");
        OptionalInt group = OptionalInt.empty();
        int numa = -1;
        boolean bootVga;
        Optional<PciAddress> physfn = Optional.empty();
        OptionalInt totalVfs = OptionalInt.empty();
        Optional<String> cdev = Optional.empty();
        List<PciAddress> bridges = List.of();
        Optional<String> pcieRoot = Optional.empty();

        Fn(PciAddress address) {
            this.address = address;
        }

        public Fn id(int vendor, int device) {
            this.vendor = vendor;
            this.device = device;
            return this;
        }

        public Fn subsystem(int vendor, int device) {
            this.subsystemVendor = vendor;
            this.subsystemDevice = device;
            return this;
        }

        public Fn cls(int classCode) {
            this.classCode = classCode;
            return this;
        }

        public Fn driver(String driver) {
            this.driver = Optional.ofNullable(driver);
            return this;
        }

        public Fn group(int group) {
            this.group = OptionalInt.of(group);
            return this;
        }

        public Fn noGroup() {
            this.group = OptionalInt.empty();
            return this;
        }

        public Fn numa(int numa) {
            this.numa = numa;
            return this;
        }

        public Fn bootVga() {
            this.bootVga = true;
            return this;
        }

        public Fn physfn(String pf) {
            this.physfn = Optional.of(PciAddress.parse(pf));
            return this;
        }

        public Fn pf(int totalVfs) {
            this.totalVfs = OptionalInt.of(totalVfs);
            return this;
        }

        public Fn cdev(String name) {
            this.cdev = Optional.of(name);
            return this;
        }

        public Fn pcieRoot(String root) {
            this.pcieRoot = Optional.of(root);
            return this;
        }

        public Fn bridges(String... upstream) {
            this.bridges = java.util.Arrays.stream(upstream).map(PciAddress::parse).toList();
            return this;
        }

        public PciFunction build() {
            return new PciFunction(address, vendor, device, subsystemVendor, subsystemDevice, classCode, 0xa1, driver, group,
                    numa, bootVga, physfn, List.of(), totalVfs, cdev, bridges, pcieRoot);
        }
    }

    private final Map<PciAddress, Fn> functions = new LinkedHashMap<>();
    private final Map<Integer, Set<PciAddress>> extraMembers = new TreeMap<>();
    private final List<MdevInstance> mdevs = new ArrayList<>();
    private final List<VgpuVf> vfs = new ArrayList<>();
    private final TreeMap<PciAddress, MdevParent> parents = new TreeMap<>();
    private final Set<Integer> missingNodes = new TreeSet<>();
    private final List<ScanProblem> problems = new ArrayList<>();

    public Fn fn(String address) {
        Fn f = new Fn(PciAddress.parse(address));
        functions.put(f.address, f);
        return f;
    }

    /** An NVIDIA GPU on vfio-pci in its own group. */
    public Fn gpu(String address, int device, int group) {
        return fn(address).id(0x10de, device).cls(0x030200).driver("vfio-pci").group(group);
    }

    public SnapshotBuilder groupMember(int group, String address) {
        extraMembers.computeIfAbsent(group, g -> new TreeSet<>()).add(PciAddress.parse(address));
        return this;
    }

    public SnapshotBuilder mdev(String uuid, String typeId, String typeName, String parent, int group) {
        mdevs.add(new MdevInstance(uuid, typeId, typeName, PciAddress.parse(parent), group));
        return this;
    }

    /** An mdev parent offering types given as {@code id=name} ({@code nvidia-222=GRID T4-1B}). */
    public SnapshotBuilder mdevParent(String address, String... types) {
        List<MdevType> list = new ArrayList<>();
        for (String t : types) {
            int eq = t.indexOf('=');
            list.add(new MdevType(t.substring(0, eq), Optional.of(t.substring(eq + 1)), 4, "vfio-pci", Optional.empty()));
        }
        parents.put(PciAddress.parse(address), new MdevParent(PciAddress.parse(address), list));
        return this;
    }

    public SnapshotBuilder vgpuVf(String address, String pf, int typeId, String typeName) {
        vfs.add(new VgpuVf(PciAddress.parse(address), PciAddress.parse(pf), typeId, Optional.ofNullable(typeName),
                typeName == null ? List.of() : List.of(new VgpuType(typeId, typeName))));
        return this;
    }

    public SnapshotBuilder withoutGroupNode(int group) {
        missingNodes.add(group);
        return this;
    }

    public SnapshotBuilder problem(String path, String reason) {
        problems.add(new ScanProblem(path, reason));
        return this;
    }

    public HostSnapshot build() {
        TreeMap<PciAddress, PciFunction> fns = new TreeMap<>();
        Map<Integer, Set<PciAddress>> members = new TreeMap<>();
        for (Fn f : functions.values()) {
            fns.put(f.address, f.build());
            f.group.ifPresent(g -> members.computeIfAbsent(g, k -> new TreeSet<>()).add(f.address));
        }
        extraMembers.forEach((g, m) -> members.computeIfAbsent(g, k -> new TreeSet<>()).addAll(m));
        for (MdevInstance m : mdevs) members.computeIfAbsent(m.iommuGroup(), k -> new TreeSet<>());
        TreeMap<Integer, IommuGroup> groups = new TreeMap<>();
        members.forEach((g, m) -> groups.put(g, new IommuGroup(g, List.copyOf(m))));
        Set<Integer> nodes = new TreeSet<>(groups.keySet());
        nodes.removeAll(missingNodes);
        TreeMap<String, MdevInstance> mdevMap = new TreeMap<>();
        for (MdevInstance m : mdevs) mdevMap.put(m.uuid(), m);
        TreeMap<PciAddress, VgpuVf> vfMap = new TreeMap<>();
        for (VgpuVf v : vfs) vfMap.put(v.address(), v);
        return new HostSnapshot(fns, groups, parents, mdevMap, vfMap,
                DevNodes.of(true, nodes, false, Set.of()), problems);
    }
}
