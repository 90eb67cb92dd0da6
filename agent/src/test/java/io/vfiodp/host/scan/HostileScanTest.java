package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.ExpectedFunction.fn;
import static io.vfiodp.host.scan.FixtureScans.pci;
import static io.vfiodp.host.scan.FixtureScans.pcis;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.ScanProblem;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Fixture {@code hostile}: garbage everywhere, one good T4. */
class HostileScanTest {

    private final HostSnapshot snapshot = FixtureScans.scan("hostile");

    @Test
    void findsTheOneGoodGpu() {
        assertThat(snapshot.functions().get(pci("0000:01:00.0"))).isEqualTo(
                fn("0000:01:00.0").ids(0x10de, 0x1eb8, 0x10de, 0x12a2).classAndRevision(0x030200, 0xa1)
                        .driver("vfio-pci").group(10).numa(0).bridges("0000:00:01.0").build());
        assertThat(snapshot.groups().get(10)).isEqualTo(new IommuGroup(10, pcis("0000:01:00.0")));
        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.of(true, Set.of(10, 22), false, Set.of()));
    }

    @Test
    void keepsOnlyFunctionsWhoseRequiredFilesAndLinksAreSound() {
        assertThat(snapshot.functions().keySet()).containsExactlyElementsOf(pcis(
                "0000:00:01.0", "0000:00:02.0", "0000:00:03.0", "0000:01:00.0", "0000:0b:00.0", "0000:0f:00.0"));
        assertThat(snapshot.mdevs()).isEmpty();
        assertThat(snapshot.vgpuVfs()).isEmpty();
    }

    @Test
    void garbageNumaNodeIsTakenAsNone() {
        assertThat(snapshot.functions().get(pci("0000:0b:00.0")).numaNode()).isEqualTo(-1);
    }

    @Test
    void garbageBootVgaCountsAsBootVga() {
        assertThat(snapshot.functions().get(pci("0000:0f:00.0")).bootVga()).isTrue();
    }

    @Test
    void explainsEverySkippedEntry() {
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/mdev/devices/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                        "dangling link (devices/pci0000:00/0000:01:00.0 does not exist)"),
                new ScanProblem("bus/mdev/devices/not-a-uuid", "not a lower-case mdev UUID"),
                new ScanProblem("bus/pci/devices/0000:02:00.0/vendor", "not a hex number: '0xZZZZ'"),
                new ScanProblem("bus/pci/devices/0000:03:00.0/class", "not UTF-8 text"),
                new ScanProblem("bus/pci/devices/0000:04:00.0/device", "empty"),
                new ScanProblem("bus/pci/devices/0000:05:00.0/vendor", "larger than 4096 bytes"),
                new ScanProblem("bus/pci/devices/0000:06:00.0/driver", "dangling link (bus/pci/drivers/ghost does not exist)"),
                new ScanProblem("bus/pci/devices/0000:07:00.0/iommu_group", "symbolic link loop (more than 40 hops)"),
                new ScanProblem("bus/pci/devices/0000:08:00.0", "link leads outside the scanned root"),
                new ScanProblem("bus/pci/devices/0000:09:00.0", "symbolic link loop (more than 40 hops)"),
                new ScanProblem("bus/pci/devices/0000:0a:00", "not a PCI address (expected DDDD:BB:SS.F)"),
                new ScanProblem("bus/pci/devices/0000:0b:00.0/numa_node", "not a decimal number: 'banana'; NUMA node taken as -1 (none)"),
                new ScanProblem("bus/pci/devices/0000:0c:00.0/driver", "link leads outside the scanned root"),
                new ScanProblem("bus/pci/devices/0000:0d:00.0/vendor", "is a symbolic link, not an attribute file"),
                new ScanProblem("bus/pci/devices/0000:0e:00.0/sriov_totalvfs", "not a decimal number: 'lots'"),
                new ScanProblem("bus/pci/devices/0000:0f:00.0/boot_vga", "not 0 or 1: 'yes'; treated as the boot VGA device"),
                new ScanProblem("bus/pci/devices/garbage", "not a PCI address (expected DDDD:BB:SS.F)"),
                new ScanProblem("dev:vfio/devices", "link leads outside the scanned root"));
    }
}
