package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.ExpectedFunction.fn;
import static io.vfiodp.host.scan.FixtureScans.pci;
import static io.vfiodp.host.scan.FixtureScans.pcis;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Fixture {@code workstation}: GeForce with companions in one group, Intel iGPU as boot VGA. */
class WorkstationScanTest {

    private final HostSnapshot snapshot = FixtureScans.scan("workstation");

    @Test
    void findsEveryFunction() {
        assertThat(snapshot.functions().keySet()).containsExactlyElementsOf(pcis(
                "0000:00:00.0", "0000:00:01.0", "0000:00:02.0", "0000:00:14.0", "0000:00:17.0",
                "0000:01:00.0", "0000:01:00.1", "0000:01:00.2", "0000:01:00.3"));
    }

    @Test
    void readsTheGeForceCompletely() {
        assertThat(snapshot.functions().get(pci("0000:01:00.0"))).isEqualTo(
                fn("0000:01:00.0").ids(0x10de, 0x1e87, 0x1043, 0x8667).classAndRevision(0x030000, 0xa1)
                        .driver("vfio-pci").group(12).numa(-1).bridges("0000:00:01.0").build());
    }

    @Test
    void companionsShareTheGpusGroupOnVfioPci() {
        assertThat(snapshot.groups().get(12)).isEqualTo(new IommuGroup(12,
                pcis("0000:01:00.0", "0000:01:00.1", "0000:01:00.2", "0000:01:00.3")));
        assertThat(snapshot.functions().get(pci("0000:01:00.1")).classCode()).isEqualTo(0x040300);
        assertThat(snapshot.functions().get(pci("0000:01:00.2")).classCode()).isEqualTo(0x0c0330);
        assertThat(snapshot.functions().get(pci("0000:01:00.3")).classCode()).isEqualTo(0x0c8000);
        for (String companion : new String[] {"0000:01:00.1", "0000:01:00.2", "0000:01:00.3"}) {
            assertThat(snapshot.functions().get(pci(companion)).driver()).as(companion).contains("vfio-pci");
        }
    }

    @Test
    void intelIgpuIsTheBootVga() {
        assertThat(snapshot.functions().get(pci("0000:00:02.0"))).isEqualTo(
                fn("0000:00:02.0").ids(0x8086, 0x3e92, 0x1043, 0x8694).classAndRevision(0x030000, 0x02)
                        .driver("i915").group(2).bootVga().build());
        assertThat(snapshot.functions().get(pci("0000:01:00.0")).bootVga()).isFalse();
    }

    @Test
    void singleNodeKernelReportsNoNumaNode() {
        assertThat(snapshot.functions().values()).allSatisfy(f -> assertThat(f.numaNode()).isEqualTo(-1));
    }

    @Test
    void hasTheContainerAndTheGpuGroupNodeOnly() {
        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.of(true, Set.of(12), false, Set.of()));
    }

    @Test
    void hasNoMediatedOrVgpuDevicesAndNoProblems() {
        assertThat(snapshot.mdevParents()).isEmpty();
        assertThat(snapshot.mdevs()).isEmpty();
        assertThat(snapshot.vgpuVfs()).isEmpty();
        assertThat(snapshot.problems()).isEmpty();
    }
}
