package io.vfiodp.host.scan;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fixture node copied to a fresh directory ({@code <area>/node/{sys,dev}}, with an intact
 * {@code <area>/twin} for corruptions that link out of it) and changed there the way the kernel
 * changes sysfs: unbind, rebind, hot-remove, a {@code /dev/vfio} node or an mdev gone, a vGPU
 * type set, or any {@link TreeCorruption}. Each change answers which devices it changed, as
 * uevents would name them.
 */
final class ChangingNode implements AutoCloseable {

    /** One change to the node. */
    sealed interface Change {
        record Unbind(PciAddress function) implements Change {}

        record Rebind(PciAddress function, String driver) implements Change {}

        /** The function, every function behind it and its VFs, and their IOMMU group entries. */
        record HotRemove(PciAddress function) implements Change {}

        record RemoveGroupNode(int group) implements Change {}

        record RemoveMdev(String uuid) implements Change {}

        record SetVgpuType(PciAddress vf, int type) implements Change {}

        record Corrupt(TreeCorruption corruption) implements Change {}
    }

    private final String fixture;
    private final Path area;
    private final HostScan intact;
    private final Map<String, DeviceFootprints> footprints = new HashMap<>();
    /** Listed under bus/pci/devices or bus/mdev/devices yet not scanned (unreadable in the committed node): named on every corruption. */
    private final Set<PciAddress> unscanned = new TreeSet<>();
    private final Set<String> unscannedMdevs = new TreeSet<>();
    private final List<TreeCorruption> denied = new ArrayList<>();

    private ChangingNode(String fixture, Path area) throws IOException {
        this.fixture = fixture;
        this.area = area;
        Path committed = SysfsFixtures.committedRoot().resolve(fixture);
        Trees.copy(committed, node());
        Trees.copy(committed, area.resolve("twin"));
        intact = scanner().fullScan();
        for (PciFunction f : intact().functions().values()) {
            Optional<Integer> group = f.iommuGroup().isPresent() ? Optional.of(f.iommuGroup().getAsInt()) : Optional.empty();
            footprints.put(f.address().toString(), DeviceFootprints.ofFunction(node(), f.address(), group));
        }
        for (MdevInstance m : intact().mdevs().values()) {
            footprints.put(m.uuid(), DeviceFootprints.ofMdev(node(), m.uuid(), m.iommuGroup()));
        }
        try (var names = Files.list(sys().resolve("bus/pci/devices"))) {
            names.map(p -> PciAddress.tryParse(p.getFileName().toString())).flatMap(Optional::stream)
                    .filter(a -> !intact().functions().containsKey(a)).forEach(unscanned::add);
        }
        Path mdevBus = sys().resolve("bus/mdev/devices");
        if (Files.isDirectory(mdevBus, LinkOption.NOFOLLOW_LINKS)) {
            try (var names = Files.list(mdevBus)) {
                names.map(p -> p.getFileName().toString()).filter(n -> !intact().mdevs().containsKey(n)).forEach(unscannedMdevs::add);
            }
        }
    }

    static ChangingNode of(String fixture) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path scratch = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return new ChangingNode(fixture, Files.createTempDirectory(scratch, "changing-" + fixture + "-"));
    }

    String fixture() {
        return fixture;
    }

    /** The scan of the node as committed. */
    HostSnapshot intact() {
        return intact.snapshot();
    }

    HostScan intactScan() {
        return intact;
    }

    Path sys() {
        return node().resolve("sys");
    }

    Path dev() {
        return node().resolve("dev");
    }

    SysfsScanner scanner() {
        return new SysfsScanner(sys(), dev());
    }

    /** Puts the committed node back in place. */
    void restore() throws IOException {
        undoDenials();
        Trees.deleteRecursively(node());
        Trees.copy(SysfsFixtures.committedRoot().resolve(fixture), node());
    }

    /** Applies {@code change}; the devices it changed (none when it found nothing to change). */
    ChangedDevices apply(Change change) throws IOException {
        return switch (change) {
            case Change.Unbind u -> {
                Optional<Path> dir = functionDir(u.function());
                if (dir.isEmpty() || !Files.isSymbolicLink(dir.get().resolve("driver"))) yield ChangedDevices.NONE;
                Path link = dir.get().resolve("driver");
                Files.delete(link);
                yield ChangedDevices.function(u.function());
            }
            case Change.Rebind r -> {
                Path drivers = sys().resolve("bus/pci/drivers");
                // through a corrupted drivers link, creating the driver's directory would mend other functions' links
                if (functionDir(r.function()).isEmpty() || !Files.isDirectory(drivers, LinkOption.NOFOLLOW_LINKS)) {
                    yield ChangedDevices.NONE;
                }
                Path dir = functionDir(r.function()).get();
                Path link = dir.resolve("driver");
                Files.deleteIfExists(link);
                Path driverDir = drivers.resolve(r.driver());
                if (!Files.isDirectory(driverDir, LinkOption.NOFOLLOW_LINKS)) {
                    if (Files.exists(driverDir, LinkOption.NOFOLLOW_LINKS)) yield ChangedDevices.NONE;
                    Files.createDirectory(driverDir);
                }
                Files.createSymbolicLink(link, dir.relativize(driverDir));
                yield ChangedDevices.function(r.function());
            }
            case Change.HotRemove h -> hotRemove(h.function());
            case Change.RemoveGroupNode g -> {
                Files.deleteIfExists(dev().resolve("vfio").resolve(Integer.toString(g.group())));
                yield ChangedDevices.NONE;
            }
            case Change.RemoveMdev m -> {
                MdevInstance mdev = intact().mdevs().get(m.uuid());
                Path link = sys().resolve("bus/mdev/devices").resolve(m.uuid());
                if (mdev == null || !Files.isSymbolicLink(link)) yield ChangedDevices.NONE;
                Path dir = link.toRealPath();
                Files.delete(link);
                Trees.deleteRecursively(dir);
                Files.deleteIfExists(sys().resolve("kernel/iommu_groups/" + mdev.iommuGroup() + "/devices/" + m.uuid()));
                yield ChangedDevices.of(Set.of(), Set.of(m.uuid()));
            }
            case Change.SetVgpuType t -> {
                Optional<Path> dir = functionDir(t.vf());
                if (dir.isEmpty() || !Files.isRegularFile(dir.get().resolve("nvidia/current_vgpu_type"), LinkOption.NOFOLLOW_LINKS)) {
                    yield ChangedDevices.NONE;
                }
                Path file = dir.get().resolve("nvidia/current_vgpu_type");
                Files.writeString(file, t.type() + "\n", StandardCharsets.US_ASCII);
                yield ChangedDevices.function(t.vf());
            }
            case Change.Corrupt c -> {
                if (!c.corruption().applyTo(node(), area.resolve("twin"))) yield ChangedDevices.NONE;
                if (c.corruption().kind() == TreeCorruption.Kind.PERMISSION_DENIED) denied.add(c.corruption());
                Set<PciAddress> functions = new TreeSet<>(unscanned);
                Set<String> mdevs = new TreeSet<>(unscannedMdevs);
                footprints.forEach((device, footprint) -> {
                    if (!footprint.touchedBy(c.corruption().path())) return;
                    if (MdevInstance.isUuid(device)) mdevs.add(device);
                    else functions.add(PciAddress.parse(device));
                });
                yield ChangedDevices.of(functions, mdevs);
            }
        };
    }

    private ChangedDevices hotRemove(PciAddress address) throws IOException {
        Path link = sys().resolve("bus/pci/devices").resolve(address.toString());
        if (!Files.isSymbolicLink(link) || !Files.isDirectory(link)) return ChangedDevices.NONE;
        Path dir = link.toRealPath();
        List<PciAddress> removed = new ArrayList<>();
        try (var entries = Files.list(sys().resolve("bus/pci/devices"))) {
            for (Path entry : entries.toList()) {
                Optional<PciAddress> a = PciAddress.tryParse(entry.getFileName().toString());
                Optional<Path> real = a.flatMap(this::functionDir);
                // the kernel removes what sits behind a bridge, and a PF's VFs, first
                boolean vf = a.flatMap(x -> Optional.ofNullable(intact().functions().get(x)))
                        .flatMap(PciFunction::physfn).equals(Optional.of(address));
                if (real.isPresent() && (real.get().startsWith(dir) || vf)) removed.add(a.get());
            }
        }
        Set<String> mdevs = new TreeSet<>();
        for (MdevInstance m : intact().mdevs().values()) {
            if (removed.contains(m.parent())) mdevs.add(m.uuid());
        }
        for (String uuid : mdevs) apply(new Change.RemoveMdev(uuid));
        for (PciAddress a : removed) {
            Path busLink = sys().resolve("bus/pci/devices").resolve(a.toString());
            if (!Files.isSymbolicLink(busLink)) continue;
            Optional<Path> group = functionDir(a).map(d -> d.resolve("iommu_group")).filter(Files::isDirectory);
            if (group.isPresent()) Files.deleteIfExists(group.get().toRealPath().resolve("devices").resolve(a.toString()));
            Files.delete(busLink);
        }
        Trees.deleteRecursively(dir);
        return ChangedDevices.of(new TreeSet<>(removed), mdevs);
    }

    /** The function's real directory, or empty when an earlier change broke the way there. */
    private Optional<Path> functionDir(PciAddress address) {
        try {
            return Optional.of(sys().resolve("bus/pci/devices").resolve(address.toString()).toRealPath());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private Path node() {
        return area.resolve("node");
    }

    @Override
    public void close() throws IOException {
        undoDenials();
        Trees.deleteRecursively(area);
    }

    /** chmod 000 entries would stop a deletion by an unprivileged user. */
    private void undoDenials() throws IOException {
        for (TreeCorruption c : denied) {
            Path p = node().resolve(c.path());
            // a later change may have put a link in its place or removed it
            if (!Files.isSymbolicLink(p) && Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
            }
        }
        denied.clear();
    }
}
