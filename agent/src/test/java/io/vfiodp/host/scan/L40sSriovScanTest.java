package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.ExpectedFunction.fn;
import static io.vfiodp.host.scan.FixtureScans.pci;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Fixture {@code l40s-sriov}: L40S PFs on nvidia with vendor-specific vGPU VFs, iommufd host. */
class L40sSriovScanTest {

    private static final VgpuType L40S_4Q = new VgpuType(1150, "NVIDIA L40S-4Q");
    private static final VgpuType L40S_1Q = new VgpuType(1147, "NVIDIA L40S-1Q");

    private final HostSnapshot snapshot = FixtureScans.scan("l40s-sriov");

    @Test
    void pfListsItsVfsInIndexOrder() {
        assertThat(snapshot.functions().get(pci("0000:41:00.0"))).isEqualTo(
                fn("0000:41:00.0").ids(0x10de, 0x26b9, 0x10de, 0x1851).classAndRevision(0x030200, 0xa1)
                        .driver("nvidia").group(21).numa(0).totalVfs(32)
                        .virtfns("0000:41:00.4", "0000:41:00.5", "0000:41:00.6", "0000:41:00.7")
                        .bridges("0000:40:01.1").build());
    }

    @Test
    void vfKnowsItsPfAndItsIommufdDevice() {
        assertThat(snapshot.functions().get(pci("0000:41:00.5"))).isEqualTo(
                fn("0000:41:00.5").ids(0x10de, 0x26b9, 0x10de, 0x1851).classAndRevision(0x030200, 0xa1)
                        .driver("nvidia").group(23).numa(0).physfn("0000:41:00.0").cdev("vfio1")
                        .bridges("0000:40:01.1").build());
        assertThat(snapshot.functions().get(pci("0000:41:00.6")).vfioCdev()).isEmpty();
    }

    @Test
    void everyVfOnNvidiaIsAVgpuVfWithTypeZeroKept() {
        assertThat(snapshot.vgpuVfs().values()).containsExactly(
                new VgpuVf(pci("0000:41:00.4"), pci("0000:41:00.0"), 1150, Optional.of("NVIDIA L40S-4Q"), List.of(L40S_4Q)),
                new VgpuVf(pci("0000:41:00.5"), pci("0000:41:00.0"), 1150, Optional.of("NVIDIA L40S-4Q"), List.of()),
                new VgpuVf(pci("0000:41:00.6"), pci("0000:41:00.0"), 0, Optional.empty(), List.of(L40S_4Q)),
                new VgpuVf(pci("0000:41:00.7"), pci("0000:41:00.0"), 0, Optional.empty(), List.of(L40S_4Q)),
                new VgpuVf(pci("0000:c1:00.4"), pci("0000:c1:00.0"), 1147, Optional.of("NVIDIA L40S-1Q"), List.of(L40S_1Q)),
                new VgpuVf(pci("0000:c1:00.5"), pci("0000:c1:00.0"), 0, Optional.empty(), List.of(L40S_1Q)));
    }

    @Test
    void aVfWithAnEmptyCreatableListIsNamedFromASibling() {
        VgpuVf vf = snapshot.vgpuVfs().get(pci("0000:41:00.5"));
        assertThat(vf.creatable()).isEmpty();
        assertThat(vf.typeName()).contains("NVIDIA L40S-4Q");
    }

    @Test
    void pfsAreNotVgpuVfs() {
        assertThat(snapshot.vgpuVfs()).doesNotContainKeys(pci("0000:41:00.0"), pci("0000:c1:00.0"));
    }

    @Test
    void seesTheIommufdNodes() {
        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.of(true, Set.of(22, 23, 62), true, Set.of("vfio0", "vfio1", "vfio2")));
    }

    @Test
    void hasNoProblems() {
        assertThat(snapshot.problems()).isEmpty();
    }
}
