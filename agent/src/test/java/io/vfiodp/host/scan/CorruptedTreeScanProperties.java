package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.fixtures.FixtureNodes;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The host scan on randomly corrupted copies of every fixture node: it never throws, never
 * opens anything outside its roots, reads a bounded number of bytes per file, and reports every
 * device the corruptions did not touch exactly as on the intact node.
 */
class CorruptedTreeScanProperties {

    /** Generous: a scan of a fixture takes milliseconds; this only turns a hang into a failure. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    /** Reads by the rest of the JVM while a scan runs (class loading, the test runner). */
    private static final long OTHER_READS = 1 << 20;

    private static final Pattern JAVA_CLASS_NAME = Pattern.compile("[A-Za-z]+(Exception|Error)\\b");

    private final Map<String, List<Entry>> entries = new HashMap<>();
    private final Map<String, Intact> intact = new HashMap<>();

    /** A corrupted copy of one fixture node. */
    record CorruptedFixture(String fixture, List<TreeCorruption> corruptions) {
        @Override
        public String toString() {
            return fixture + " " + corruptions;
        }
    }

    private record Entry(String path, List<TreeCorruption.Kind> kinds) {}

    @Property(tries = 300)
    void scanOfACorruptedNodeKeepsEveryUntouchedDevice(@ForAll("corruptedFixtures") CorruptedFixture c) throws Exception {
        Intact clean = intact(c.fixture());
        try (CorruptedNode node = CorruptedNode.of(c.fixture(), c.corruptions())) {
            long bytesBound = node.regularFiles() * (AttributeFile.MAX_BYTES + 1L) + OTHER_READS;
            HostSnapshot snapshot;
            long bytesRead;
            List<String> outsideOpens;
            try (OpenWatch watch = OpenWatch.of(List.of(node.area()), Set.of(node.node()))) {
                long before = ProcessIo.readChars();
                snapshot = UnprivilegedThread.call(() -> new SysfsScanner(node.sys(), node.dev()).scan(), HANG_GUARD);
                bytesRead = ProcessIo.readChars() - before;
                outsideOpens = watch.drain();
            }

            assertThat(outsideOpens).as("entries outside the scanned roots that the scan opened").isEmpty();
            assertThat(bytesRead).as("bytes read by the scan of %d files", node.regularFiles()).isLessThanOrEqualTo(bytesBound);
            assertThat(snapshot.problems()).as("problems name entries relative to the root, in words")
                    .noneMatch(p -> (p.path() + " " + p.reason()).contains(node.node().toString()))
                    .noneMatch(p -> JAVA_CLASS_NAME.matcher(p.reason()).find());
            assertUntouchedDevicesAsIntact(clean, node.applied(), snapshot);
        }
    }

    private static void assertUntouchedDevicesAsIntact(Intact clean, List<TreeCorruption> applied, HostSnapshot snapshot) {
        HostSnapshot before = clean.snapshot();
        List<String> untouched = new ArrayList<>();
        for (PciFunction f : before.functions().values()) {
            PciAddress a = f.address();
            if (clean.touched(a.toString(), applied)) continue;
            untouched.add(a.toString());
            assertThat(snapshot.functions().get(a)).as("function %s", a).isEqualTo(f);
            assertThat(snapshot.mdevParents().get(a)).as("mdev types of %s", a).isEqualTo(before.mdevParents().get(a));
            if (f.iommuGroup().isPresent()) {
                int g = f.iommuGroup().getAsInt();
                assertThat(snapshot.groups().get(g)).as("IOMMU group %d of %s", g, a).isEqualTo(before.groups().get(g));
                assertThat(snapshot.devNodes().hasGroupNode(g)).as("/dev/vfio/%d of %s", g, a)
                        .isEqualTo(before.devNodes().hasGroupNode(g));
            }
            VgpuVf vf = before.vgpuVfs().get(a);
            // a VF's vGPU type name may come from a sibling's creatable list
            if (vf != null && before.vgpuVfs().values().stream().filter(s -> s.physfn().equals(vf.physfn()))
                    .noneMatch(s -> clean.touched(s.address().toString(), applied))) {
                assertThat(snapshot.vgpuVfs().get(a)).as("vGPU VF %s", a).isEqualTo(vf);
            }
        }
        for (MdevInstance m : before.mdevs().values()) {
            if (clean.touched(m.uuid(), applied)) continue;
            untouched.add(m.uuid());
            assertThat(snapshot.mdevs().get(m.uuid())).as("mdev %s", m.uuid()).isEqualTo(m);
            assertThat(snapshot.devNodes().hasGroupNode(m.iommuGroup())).as("/dev/vfio/%d of %s", m.iommuGroup(), m.uuid())
                    .isEqualTo(before.devNodes().hasGroupNode(m.iommuGroup()));
        }
    }

    @Provide
    Arbitrary<CorruptedFixture> corruptedFixtures() {
        return Arbitraries.of(FixtureNodes.NODES).flatMap(fixture -> {
            Arbitrary<TreeCorruption> one = Arbitraries.of(entries(fixture)).flatMap(e ->
                    Arbitraries.of(e.kinds()).flatMap(kind ->
                            Arbitraries.integers().between(0, 2).map(variant -> new TreeCorruption(e.path(), kind, variant))));
            return one.list().ofMinSize(1).ofMaxSize(6).map(list -> new CorruptedFixture(fixture, list));
        });
    }

    /** Every file, directory and link of the fixture node, with what can be done to it. */
    private List<Entry> entries(String fixture) {
        return entries.computeIfAbsent(fixture, f -> {
            Path node = SysfsFixtures.committedRoot().resolve(f);
            List<Entry> out = new ArrayList<>();
            try {
                for (String root : List.of("sys", "dev")) {
                    Files.walkFileTree(node.resolve(root), new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            if (!dir.equals(node.resolve(root))) out.add(new Entry(rel(dir), TreeCorruption.Kind.FOR_DIRECTORIES));
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            out.add(new Entry(rel(file), attrs.isSymbolicLink() ? TreeCorruption.Kind.FOR_LINKS : TreeCorruption.Kind.FOR_FILES));
                            return FileVisitResult.CONTINUE;
                        }

                        private String rel(Path p) {
                            return node.relativize(p).toString();
                        }
                    });
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot list fixture " + f, e);
            }
            out.sort(java.util.Comparator.comparing(Entry::path));
            return out;
        });
    }

    private Intact intact(String fixture) throws IOException {
        Intact known = intact.get(fixture);
        if (known != null) return known;
        Path node = SysfsFixtures.committedRoot().resolve(fixture);
        HostSnapshot snapshot = new SysfsScanner(node.resolve("sys"), node.resolve("dev")).scan();
        Map<String, DeviceFootprints> footprints = new HashMap<>();
        for (PciFunction f : snapshot.functions().values()) {
            Optional<Integer> group = f.iommuGroup().isPresent() ? Optional.of(f.iommuGroup().getAsInt()) : Optional.empty();
            footprints.put(f.address().toString(), DeviceFootprints.ofFunction(node, f.address(), group));
        }
        for (MdevInstance m : snapshot.mdevs().values()) {
            footprints.put(m.uuid(), DeviceFootprints.ofMdev(node, m.uuid(), m.iommuGroup()));
        }
        Intact made = new Intact(snapshot, footprints);
        intact.put(fixture, made);
        return made;
    }

    /** The scan of the committed node and each of its devices' footprints. */
    private record Intact(HostSnapshot snapshot, Map<String, DeviceFootprints> footprints) {
        boolean touched(String device, List<TreeCorruption> applied) {
            DeviceFootprints f = footprints.get(device);
            return applied.stream().anyMatch(c -> f.touchedBy(c.path()));
        }
    }
}
