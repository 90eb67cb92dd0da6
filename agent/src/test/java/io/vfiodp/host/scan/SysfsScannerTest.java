package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.FixtureScans.pci;
import static io.vfiodp.host.scan.FixtureScans.pcis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.SysfsTreeWriter;
import io.vfiodp.host.fixtures.Written;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scanner behaviours shown on small purpose-built trees. */
class SysfsScannerTest {

    @TempDir
    Path tmp;

    private SysfsTreeWriter tree() {
        return new SysfsTreeWriter(tmp.resolve("node"));
    }

    private HostSnapshot scan(SysfsTreeWriter tree) {
        return new SysfsScanner(tree.sys(), tree.dev()).scan();
    }

    private static Written l40sPf(SysfsTreeWriter tree) {
        return tree.rootBus(0, 0x40, 0).function("0000:41:00.0").ids(0x10de, 0x26b9).classCode(0x030200)
                .driver("nvidia").group(21).sriovTotalVfs(32).write();
    }

    private static Written l40sVf(Written pf, int index, String address, int group) {
        return pf.vf(index, address).ids(0x10de, 0x26b9).classCode(0x030200).driver("nvidia").group(group).write();
    }

    @Test
    void mdevOfATypeWithoutNameFileIsNamedByTheTypeId() {
        SysfsTreeWriter tree = tree();
        tree.rootBus(0, 0x3b, 0).function("0000:3b:00.0").ids(0x10de, 0x1eb8).classCode(0x030200).driver("nvidia").group(31)
                .write()
                .mdevType("nvidia-319", null, 3, "num_heads=1, frl_config=60, framebuffer=4096M")
                .mdev("11111111-2222-4333-8444-555555555555", "nvidia-319", 100);

        assertThat(scan(tree).mdevs().values()).containsExactly(new MdevInstance(
                "11111111-2222-4333-8444-555555555555", "nvidia-319", "nvidia-319", pci("0000:3b:00.0"), 100));
    }

    @Test
    void unreadableMdevTypeIsLeftOutAndItsSiblingsKept() {
        SysfsTreeWriter tree = tree();
        tree.rootBus(0, 0x3b, 0).function("0000:3b:00.0").ids(0x10de, 0x1eb8).classCode(0x030200).driver("nvidia").group(31)
                .write()
                .mdevType("nvidia-230", "GRID T4-1Q", 16, "d")
                .mdevType("nvidia-231", "GRID T4-2Q", 8, "d");
        tree.rawFile("devices/pci0000:3b/0000:3b:00.0/mdev_supported_types/nvidia-231/available_instances", "many\n");

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.mdevParents().get(pci("0000:3b:00.0")).types()).extracting(MdevType::id).containsExactly("nvidia-230");
        assertThat(snapshot.problems()).containsExactly(new ScanProblem(
                "bus/pci/devices/0000:3b:00.0/mdev_supported_types/nvidia-231/available_instances", "not a decimal number: 'many'"));
    }

    @Test
    void vgpuTypeNamedByNoListKeepsTheVfWithoutNameAndSaysWhy() {
        SysfsTreeWriter tree = tree();
        Written pf = l40sPf(tree);
        l40sVf(pf, 0, "0000:41:00.4", 22).vgpu(1155, "");
        l40sVf(pf, 1, "0000:41:00.5", 23).vgpu(0, "1150 : NVIDIA L40S-4Q\n");

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.vgpuVfs().get(pci("0000:41:00.4")))
                .isEqualTo(new VgpuVf(pci("0000:41:00.4"), pci("0000:41:00.0"), 1155, Optional.empty(), List.of()));
        assertThat(snapshot.problems()).containsExactly(new ScanProblem("bus/pci/devices/0000:41:00.4/nvidia/current_vgpu_type",
                "vGPU type 1155 is listed by no creatable_vgpu_types of this VF or its siblings; name unknown"));
    }

    @Test
    void siblingNamesComeOnlyFromTheSamePf() {
        SysfsTreeWriter tree = tree();
        Written pf0 = l40sPf(tree);
        l40sVf(pf0, 0, "0000:41:00.4", 22).vgpu(1150, "");
        Written pf1 = tree.rootBus(0, 0xc0, 1).function("0000:c1:00.0").ids(0x10de, 0x26b9).classCode(0x030200)
                .driver("nvidia").group(61).sriovTotalVfs(32).write();
        l40sVf(pf1, 0, "0000:c1:00.4", 62).vgpu(0, "1150 : NVIDIA L40S-4Q\n");

        assertThat(scan(tree).vgpuVfs().get(pci("0000:41:00.4")).typeName()).isEmpty();
    }

    @Test
    void vfWithGarbageCurrentTypeIsSkipped() {
        SysfsTreeWriter tree = tree();
        l40sVf(l40sPf(tree), 0, "0000:41:00.4", 22).vgpu(0, "");
        tree.rawFile("devices/pci0000:40/0000:41:00.4/nvidia/current_vgpu_type", "none\n");

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.vgpuVfs()).isEmpty();
        assertThat(snapshot.functions()).containsKey(pci("0000:41:00.4"));
        assertThat(snapshot.problems()).containsExactly(new ScanProblem(
                "bus/pci/devices/0000:41:00.4/nvidia/current_vgpu_type", "not a decimal number: 'none'"));
    }

    @Test
    void unreadableCreatableListKeepsTheVfWithoutTypes() {
        SysfsTreeWriter tree = tree();
        l40sVf(l40sPf(tree), 0, "0000:41:00.4", 22).vgpu(0, "");
        tree.rawFile("devices/pci0000:40/0000:41:00.4/nvidia/creatable_vgpu_types", new byte[] {(byte) 0xc3, 0x28});

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.vgpuVfs().get(pci("0000:41:00.4")).creatable()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(new ScanProblem(
                "bus/pci/devices/0000:41:00.4/nvidia/creatable_vgpu_types", "not UTF-8 text; no creatable types recorded"));
    }

    @Test
    void vfBoundToAnotherDriverIsNoVgpuVf() {
        SysfsTreeWriter tree = tree();
        Written pf = l40sPf(tree);
        pf.vf(0, "0000:41:00.4").ids(0x10de, 0x26b9).classCode(0x030200).driver("vfio-pci").group(22).write().vgpu(1150, "");

        assertThat(scan(tree).vgpuVfs()).isEmpty();
    }

    @Test
    void unreadableDescriptiveAttributesDefaultToZeroAndAreReported() {
        SysfsTreeWriter tree = tree();
        tree.rootBus(0, 0, 0).function("0000:01:00.0").ids(0x10de, 0x1eb8).subsystem(0x10de, 0x12a2)
                .classCode(0x030200).revision(0xa1).driver("vfio-pci").group(3).write();
        tree.remove("devices/pci0000:00/0000:01:00.0/subsystem_vendor")
                .rawFile("devices/pci0000:00/0000:01:00.0/revision", "a1\n");

        HostSnapshot snapshot = scan(tree);

        PciFunction t4 = snapshot.functions().get(pci("0000:01:00.0"));
        assertThat(t4.subsystemVendor()).isZero();
        assertThat(t4.subsystemDevice()).isEqualTo(0x12a2);
        assertThat(t4.revision()).isZero();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0/revision", "not a hex number: 'a1'; taken as 0"),
                new ScanProblem("bus/pci/devices/0000:01:00.0/subsystem_vendor", "missing; taken as 0"));
    }

    @Test
    void functionWithoutIommuOrDriverHasNeither() {
        SysfsTreeWriter tree = tree();
        tree.rootBus(0, 0, 0).function("0000:00:00.0").ids(0x8086, 0x2020).classCode(0x060000).write();

        PciFunction bridge = scan(tree).functions().get(pci("0000:00:00.0"));

        assertThat(bridge.iommuGroup()).isEmpty();
        assertThat(bridge.driver()).isEmpty();
    }

    @Test
    void groupMembersComeFromTheGroupDirectoryEvenWhenAMemberIsUnreadable() {
        SysfsTreeWriter tree = tree();
        SysfsTreeWriter.Bus bus = tree.rootBus(0, 0, -1);
        bus.function("0000:01:00.0").ids(0x10de, 0x1e87).classCode(0x030000).driver("vfio-pci").group(12).write();
        bus.function("0000:01:00.1").ids(0x10de, 0x10f8).classCode(0x040300).driver("snd_hda_intel").group(12).write();
        tree.rawFile("devices/pci0000:00/0000:01:00.1/class", "audio\n");

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.functions().keySet()).containsExactly(pci("0000:01:00.0"));
        assertThat(snapshot.groups().get(12).members()).containsExactlyElementsOf(pcis("0000:01:00.0", "0000:01:00.1"));
    }

    @Test
    void deviceLinkLeadingToAnotherFunctionIsSkipped() {
        SysfsTreeWriter tree = tree();
        tree.rootBus(0, 0, 0).function("0000:01:00.0").ids(0x10de, 0x1eb8).classCode(0x030200).group(3).write();
        tree.rawLink("bus/pci/devices/0000:02:00.0", "../../../devices/pci0000:00/0000:01:00.0");

        HostSnapshot snapshot = scan(tree);

        assertThat(snapshot.functions().keySet()).containsExactly(pci("0000:01:00.0"));
        assertThat(snapshot.problems()).containsExactly(new ScanProblem("bus/pci/devices/0000:02:00.0",
                "link leads to a device named 0000:01:00.0, not 0000:02:00.0"));
    }

    /** Just above the scanner's threshold for reading in parallel (64 functions). */
    private static final LargeHostTree.Shape SMALL_BUT_PARALLEL = new LargeHostTree.Shape(12, 1, 6, 1, 2, 4);

    @Test
    void parallelScanOfALargeHostEqualsASequentialOne() {
        LargeHostTree.write(tmp.resolve("large"), SMALL_BUT_PARALLEL);
        Path sys = tmp.resolve("large/sys");
        Path dev = tmp.resolve("large/dev");

        HostSnapshot sequential = new SysfsScanner(sys, dev).scan();
        HostSnapshot parallel;
        try (ReaderPool readers = ReaderPool.start(4)) {
            parallel = new SysfsScanner(sys, dev, readers).scan();
        }

        assertThat(sequential.functions()).hasSize(SMALL_BUT_PARALLEL.functionCount()).hasSizeGreaterThan(64);
        assertThat(sequential.vgpuVfs()).hasSize(6);
        assertThat(sequential.mdevs()).hasSize(2);
        assertThat(sequential.problems()).isEmpty();
        assertThat(parallel).isEqualTo(sequential);
    }

    @Test
    void scansReuseThePoolsReadersAndClosingLeavesNoneBehind() {
        LargeHostTree.write(tmp.resolve("large"), SMALL_BUT_PARALLEL);

        try (ReaderPool readers = ReaderPool.start(2)) {
            SysfsScanner scanner = new SysfsScanner(tmp.resolve("large/sys"), tmp.resolve("large/dev"), readers);
            scanner.scan();
            Set<String> afterFirst = readerThreadNames();
            scanner.scan();
            scanner.scan();

            assertThat(afterFirst).containsExactlyInAnyOrder("sysfs-scan-1", "sysfs-scan-2");
            assertThat(readerThreadNames()).isEqualTo(afterFirst);
        }

        assertThat(readerThreadNames()).isEmpty();
    }

    @Test
    void aScannerWithoutPoolReadsOnTheCallingThread() {
        LargeHostTree.write(tmp.resolve("large"), SMALL_BUT_PARALLEL);

        new SysfsScanner(tmp.resolve("large/sys"), tmp.resolve("large/dev")).scan();

        assertThat(readerThreadNames()).isEmpty();
    }

    @Test
    void aReaderPoolHasAtLeastTwoThreads() {
        assertThatThrownBy(() -> ReaderPool.start(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a reader pool needs at least 2 threads, was 1");
    }

    private static Set<String> readerThreadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("sysfs-scan-")).collect(Collectors.toSet());
    }
}
