package io.vfiodp.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What an unhealthy device's taint says, within what a label value may hold. */
class HealthTaintTest {

    @Test
    void theKeyIsUnderTheDriversDomainAndTheEffectNoSchedule() {
        HealthTaint t = HealthTaint.unhealthy("vfio-device-plugin.io", "IOMMU group 65: /dev/vfio/65 missing");
        assertThat(t).isEqualTo(new HealthTaint("vfio-device-plugin.io/unhealthy", "IOMMU-group-65-dev-vfio-65-missing", "NoSchedule"));
    }

    @Test
    void runsOfOtherCharactersBecomeOneDashAndTheEndsAreAlphanumeric() {
        assertThat(HealthTaint.value("0000:3b:00.0 is gone from the host; removed at the next rescan"))
                .isEqualTo("0000-3b-00.0-is-gone-from-the-host-removed-at-the-next-rescan");
        assertThat(HealthTaint.value("  (group not viable: 0000:3b:00.1 on snd_hda_intel)  ")).isEqualTo("group-not-viable-0000-3b-00.1-on-snd_hda_intel");
        assertThat(HealthTaint.value("_.reset failed._")).isEqualTo("reset-failed");
        assertThat(HealthTaint.value("état dégradé")).isEqualTo("tat-d-grad");
    }

    @Test
    void aReasonWithNothingToKeepIsJustUnhealthy() {
        assertThat(HealthTaint.value(":/ -")).isEqualTo("unhealthy");
    }

    @Test
    void aLongReasonKeepsItsStartAndADigestOfTheWhole() {
        String a = "IOMMU group 12: not viable: 0000:3b:00.1 is bound to snd_hda_intel, a host driver; bind it to vfio-pci";
        String b = "IOMMU group 12: not viable: 0000:3b:00.1 is bound to snd_hda_intel, a host driver; unbind it";
        String va = HealthTaint.value(a);
        assertThat(va).hasSize(63).startsWith("IOMMU-group-12-not-viable-0000-3b-00.1-is-bound-to-snd").matches(".*-[0-9a-f]{8}");
        assertThat(HealthTaint.value(a)).isEqualTo(va);
        assertThat(HealthTaint.value(b)).isNotEqualTo(va).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void aValueThatIsNoLabelValueIsRefused() {
        assertThatThrownBy(() -> new HealthTaint("x.io/unhealthy", "-bad", "NoSchedule")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("taint value '-bad' is not a label value");
        assertThatThrownBy(() -> new HealthTaint("x.io/unhealthy", "a".repeat(64), "NoSchedule")).isInstanceOf(IllegalArgumentException.class);
    }
}
