package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.pciids.PciIds;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The policy marks a device Unhealthy when VFIO would refuse its IOMMU group. */
class GroupViabilityTest {

    private static PciIds ids() {
        try {
            return PciIds.parse("test pci.ids", "10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n".getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A T4 at 0000:01:00.0 in group 12 with a second member 0000:01:00.1 of the given class and driver. */
    private static Health healthWithMember(int classCode, String driver) {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:01:00.0", 0x1eb8, 12);
        SnapshotBuilder.Fn member = b.fn("0000:01:00.1").id(0x10de, 0x10f8).cls(classCode).group(12);
        if (driver != null) member.driver(driver);
        return onlyDevice(b);
    }

    private static Health onlyDevice(SnapshotBuilder b) {
        DesiredState state = PolicyEngine.evaluate(b.build(), Optional.empty(), ids()).desiredState();
        return state.resources().values().iterator().next().devices().getFirst().health();
    }

    @Test
    void memberOnAHostDriverMakesTheGroupNotViable() {
        assertThat(healthWithMember(0x040300, "snd_hda_intel"))
                .isEqualTo(Health.unhealthy("group 12 not viable: 0000:01:00.1 bound to snd_hda_intel"));
    }

    @Test
    void memberOnVfioPciIsViable() {
        assertThat(healthWithMember(0x040300, "vfio-pci")).isEqualTo(Health.HEALTHY);
    }

    @Test
    void memberOnAVendorVfioVariantIsViable() {
        assertThat(healthWithMember(0x040300, "nvgrace_gpu_vfio_pci")).isEqualTo(Health.HEALTHY);
    }

    @Test
    void memberOnPciStubIsViable() {
        assertThat(healthWithMember(0x040300, "pci-stub")).isEqualTo(Health.HEALTHY);
    }

    @Test
    void memberWithoutDriverIsViable() {
        assertThat(healthWithMember(0x040300, null)).isEqualTo(Health.HEALTHY);
    }

    @Test
    void pcieBridgeOnPcieportIsViable() {
        assertThat(healthWithMember(0x060400, "pcieport")).isEqualTo(Health.HEALTHY);
    }

    @Test
    void nonBridgeOnPcieportIsNotViable() {
        assertThat(healthWithMember(0x0c8000, "pcieport"))
                .isEqualTo(Health.unhealthy("group 12 not viable: 0000:01:00.1 bound to pcieport"));
    }

    @Test
    void missingGroupNodeIsReportedBeforeViability() {
        SnapshotBuilder b = new SnapshotBuilder().withoutGroupNode(12);
        b.gpu("0000:01:00.0", 0x1eb8, 12);
        b.fn("0000:01:00.1").id(0x10de, 0x10f8).cls(0x040300).driver("snd_hda_intel").group(12);

        assertThat(onlyDevice(b)).isEqualTo(Health.unhealthy("IOMMU group 12: /dev/vfio/12 missing"));
    }

    @Test
    void sriovVgpuVfOnNvidiaIsViableForItself() {
        SnapshotBuilder b = new SnapshotBuilder().vgpuVf("0000:41:00.4", "0000:41:00.0", 1150, "NVIDIA L40S-4Q");
        b.fn("0000:41:00.0").id(0x10de, 0x26b9).cls(0x030200).driver("nvidia").group(22).pf(16);
        b.fn("0000:41:00.4").id(0x10de, 0x26b9).cls(0x030200).driver("nvidia").group(23).physfn("0000:41:00.0");

        assertThat(onlyDevice(b)).isEqualTo(Health.HEALTHY);
    }
}
