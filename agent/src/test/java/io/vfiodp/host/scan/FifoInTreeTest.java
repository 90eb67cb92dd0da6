package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.FixtureScans.pci;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A FIFO (named pipe, made by mkfifo in a copied fixture node) in place of a file the scan, the
 * kernel's facts or the reset methods read: opening it to read would wait for a writer that never
 * comes. Each becomes a problem or an unreadable reading that names the file, and the rest is read.
 */
class FifoInTreeTest {

    /** Far above what reading a fixture takes; only turns a hang into a failure. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final String T4 = "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:08.0/0000:1a:00.0";
    private static final String NVME = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";
    private static final Map<String, List<String>> MODULES = Map.of("vfio", List.of());
    private static final String FIFO = "is a FIFO (named pipe), not an attribute file";

    private static TreeCorruption fifo(String path) {
        return new TreeCorruption(path, TreeCorruption.Kind.FIFO, 0);
    }

    @Test
    void aFifoInPlaceOfAnAttributeIsAProblemNamingItAndTheScanGoesOn() throws Exception {
        HostSnapshot intact = FixtureScans.scan("t4-numa");
        try (CorruptedNode node = CorruptedNode.of("t4-numa", List.of(fifo(T4 + "/numa_node"), fifo(NVME + "/vendor")))) {
            assertThat(node.applied()).hasSize(2);

            HostSnapshot snapshot = assertTimeoutPreemptively(HANG_GUARD, () -> new SysfsScanner(node.sys(), node.dev()).scan());

            assertThat(snapshot.problems()).contains(
                    new ScanProblem("bus/pci/devices/0000:1a:00.0/numa_node", FIFO + "; NUMA node taken as -1 (none)"),
                    new ScanProblem("bus/pci/devices/0000:3b:00.0/vendor", FIFO));
            assertThat(snapshot.functions().get(pci("0000:1a:00.0")).numaNode()).isEqualTo(-1);
            assertThat(snapshot.functions()).doesNotContainKey(pci("0000:3b:00.0"));
            assertThat(snapshot.functions().get(pci("0000:1b:00.0"))).isEqualTo(intact.functions().get(pci("0000:1b:00.0")));
        }
    }

    @Test
    void aFifoInPlaceOfResetMethodIsUnreadableNamingIt() throws Exception {
        PciAddress t4 = PciAddress.parse("0000:18:00.0");
        try (CorruptedNode node = CorruptedNode.of("doctor-ready",
                List.of(fifo("sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/reset_method")))) {
            Reading<List<String>> methods = assertTimeoutPreemptively(HANG_GUARD,
                    () -> ResetSupportReader.read(node.sys(), List.of(t4)).get(t4).methods());

            assertThat(methods).isEqualTo(new Reading.Unreadable<>(node.sys().resolve("bus/pci/devices/0000:18:00.0/reset_method").toString(), FIFO));
        }
    }

    @Test
    void fifosInPlaceOfProcFilesAreUnreadableNamingThem() throws Exception {
        try (CorruptedNode node = CorruptedNode.of("doctor-ready", List.of(fifo("proc/cmdline"), fifo("proc/interrupts")))) {
            KernelFacts facts = assertTimeoutPreemptively(HANG_GUARD, () -> KernelFactsReader.read(node.sys(), node.node().resolve("proc"), Optional.empty(), MODULES,
                    Set.of()));

            assertThat(facts.commandLine()).isEqualTo(new Reading.Unreadable<>(node.node().resolve("proc/cmdline").toString(), FIFO));
            assertThat(facts.interrupts()).isEqualTo(new Reading.Unreadable<>(node.node().resolve("proc/interrupts").toString(),
                    "is a FIFO (named pipe), not a file"));
        }
    }

    @Test
    void fifosInPlaceOfTheKernelsConfigurationAreUnreadableNamingThem() throws Exception {
        Set<String> options = Set.of("CONFIG_VFIO");
        try (CorruptedNode proc = CorruptedNode.of("doctor-vm-firecracker", List.of(fifo("proc/config.gz")));
             CorruptedNode boot = CorruptedNode.of("doctor-iommu-off", List.of(fifo("boot/config-5.15.0-119-generic")))) {
            assertThat(proc.applied()).hasSize(1);
            assertThat(boot.applied()).hasSize(1);
            KernelFacts fromProc = assertTimeoutPreemptively(HANG_GUARD, () -> KernelFactsReader.read(proc.sys(), proc.node().resolve("proc"),
                    Optional.of(proc.node().resolve("boot")), MODULES, options));
            KernelFacts fromBoot = assertTimeoutPreemptively(HANG_GUARD, () -> KernelFactsReader.read(boot.sys(), boot.node().resolve("proc"),
                    Optional.of(boot.node().resolve("boot")), MODULES, options));

            assertThat(fromProc.build().config()).isEqualTo(new Reading.Unreadable<>(proc.node().resolve("proc/config.gz").toString(),
                    "is a FIFO (named pipe), not a file"));
            assertThat(fromBoot.build().config()).isEqualTo(new Reading.Unreadable<>(
                    boot.node().resolve("boot/config-5.15.0-119-generic").toString(), "is a FIFO (named pipe), not a file"));
        }
    }

    @Test
    void onlyAKernelsOwnTreeIsOpenedWithoutLookingAtEachFilesTypeFirst() throws IOException {
        assertThat(ConfinedTree.isKernelTree(SysfsFixtures.sys("t4-numa"))).isFalse();
        assumeTrue(Files.getFileStore(Path.of("/sys")).type().equals("sysfs") && Files.getFileStore(Path.of("/proc")).type().equals("proc"),
                "this machine's /sys and /proc are the kernel's");

        assertThat(ConfinedTree.isKernelTree(Path.of("/sys"))).isTrue();
        assertThat(ConfinedTree.isKernelTree(Path.of("/proc"))).isTrue();
    }

    @Test
    void onAKernelsTreeALinkInPlaceOfAnAttributeIsStillNamed() throws IOException {
        assumeTrue(Files.isSymbolicLink(Path.of("/sys/class/mem/null")) && ConfinedTree.isKernelTree(Path.of("/sys")),
                "this machine's /sys is the kernel's, with /sys/class/mem/null");
        ConfinedTree sys = ConfinedTree.open(Path.of("/sys"), true);

        assertThatThrownBy(() -> sys.rawAttribute(Path.of("/sys/class/mem").toRealPath().toString(), "null", "class/mem/null"))
                .isInstanceOf(EntryUnreadable.class).hasMessage("is a symbolic link, not an attribute file");
    }
}
