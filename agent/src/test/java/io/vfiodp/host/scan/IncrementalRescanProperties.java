package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.fixtures.FixtureNodes;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * An incremental rescan that is told which devices changed gives the snapshot a full scan gives,
 * after random changes to every fixture node: unbinds, rebinds, hot-removes, group nodes and
 * mdevs gone, vGPU types set, and any corruption of a device's own entries. Checked both ways:
 * from the intact node to the changed one, and back (which is a hot-add, a bind, an mdev and a
 * node appearing).
 */
class IncrementalRescanProperties {

    /**
     * Paths no device event names a change of: the mdev bus directory (loaded or unloaded with its
     * module, which on a node without mdevs names no device) and what holds it.
     */
    private static final Set<String> STRUCTURE = Set.of("sys/bus", "sys/bus/mdev", "sys/bus/mdev/devices");

    private final Map<String, List<ChangingNode.Change>> changes = new HashMap<>();

    record Changes(String fixture, List<ChangingNode.Change> changes) {
        @Override
        public String toString() {
            return fixture + " " + changes;
        }
    }

    @Property(tries = 250)
    void rescanOfTheNamedDevicesEqualsAFullScan(@ForAll("changes") Changes c) throws IOException {
        try (ChangingNode node = ChangingNode.of(c.fixture())) {
            SysfsScanner scanner = node.scanner();
            HostScan before = scanner.fullScan();
            ChangedDevices changed = ChangedDevices.NONE;
            for (ChangingNode.Change change : c.changes()) {
                ChangedDevices one = node.apply(change);
                changed = changed.plus(one);
                HostScan step = scanner.rescan(before, one);
                assertThat(step.snapshot()).as("after %s, rescan of %s", change, one).isEqualTo(scanner.scan());
                before = step;
            }
            HostScan changedScan = scanner.fullScan();
            assertThat(scanner.rescan(node.intactScan(), changed).snapshot()).as("all at once: %s", changed)
                    .isEqualTo(changedScan.snapshot());

            node.restore();
            assertThat(scanner.rescan(changedScan, changed).snapshot()).as("back to the committed node: %s", changed)
                    .isEqualTo(node.intact());
        }
    }

    @Provide
    Arbitrary<Changes> changes() {
        return Arbitraries.of(FixtureNodes.NODES).flatMap(fixture ->
                Arbitraries.of(possibleChanges(fixture)).list().ofMinSize(1).ofMaxSize(5).map(list -> new Changes(fixture, list)));
    }

    /** What can be done to the fixture node: every change the snapshot suggests, every corruption of a device entry. */
    private List<ChangingNode.Change> possibleChanges(String fixture) {
        return changes.computeIfAbsent(fixture, f -> {
            List<ChangingNode.Change> out = new ArrayList<>();
            HostSnapshot s = new SysfsScanner(SysfsFixtures.sys(f), SysfsFixtures.dev(f)).scan();
            List<String> drivers = List.of("vfio-pci", "nvidia", "snd_hda_intel");
            for (PciFunction fn : s.functions().values()) {
                out.add(new ChangingNode.Change.Unbind(fn.address()));
                for (String d : drivers) out.add(new ChangingNode.Change.Rebind(fn.address(), d));
                out.add(new ChangingNode.Change.HotRemove(fn.address()));
            }
            for (int group : s.devNodes().groupNodes()) out.add(new ChangingNode.Change.RemoveGroupNode(group));
            for (String uuid : s.mdevs().keySet()) out.add(new ChangingNode.Change.RemoveMdev(uuid));
            for (VgpuVf vf : s.vgpuVfs().values()) {
                out.add(new ChangingNode.Change.SetVgpuType(vf.address(), 0));
                for (VgpuType t : vf.creatable()) out.add(new ChangingNode.Change.SetVgpuType(vf.address(), t.id()));
            }
            for (TreeCorruption c : corruptions(f)) out.add(new ChangingNode.Change.Corrupt(c));
            return out;
        });
    }

    private static List<TreeCorruption> corruptions(String fixture) {
        Path node = SysfsFixtures.committedRoot().resolve(fixture);
        List<TreeCorruption> out = new ArrayList<>();
        try {
            Files.walkFileTree(node.resolve("sys"), new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String rel = node.relativize(dir).toString();
                    if (!dir.equals(node.resolve("sys")) && !STRUCTURE.contains(rel)) add(rel, TreeCorruption.Kind.FOR_DIRECTORIES);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    add(node.relativize(file).toString(), attrs.isSymbolicLink() ? TreeCorruption.Kind.FOR_LINKS : TreeCorruption.Kind.FOR_FILES);
                    return FileVisitResult.CONTINUE;
                }

                private void add(String path, List<TreeCorruption.Kind> kinds) {
                    for (TreeCorruption.Kind kind : kinds) out.add(new TreeCorruption(path, kind, 0));
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot list fixture " + fixture, e);
        }
        return out;
    }
}
