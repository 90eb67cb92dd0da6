package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.libvirt.VgpuDisplay.RamFb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one virt-launcher rule that differs between the releases, as kubevirt/kubevirt writes it in
 * {@code pkg/virt-launcher/virtwrap/device/hostdevice/hostdev.go} ({@code isRamFBSet}) at tag
 * v1.9.0 (commit 79d34c1762) and at main (d923fdb815) since commit ac2ad7de6a, "Default ramfb to
 * enabled when display is set"; and which versions name which release.
 */
class KubeVirtReleaseTest {

    /** v1.9.0: {@code RamFB != nil && RamFB.Enabled != nil && *RamFB.Enabled}. */
    @ParameterizedTest
    @CsvSource({"ABSENT,false", "UNSET,false", "ENABLED,true", "DISABLED,false"})
    void isRamFbSetOfV190IsTrueOnlyForRamFbEnabledTrue(RamFb ramFb, boolean ramfb) {
        assertThat(KubeVirtRelease.V1_9.ramfbBesidePciDisplay(ramFb)).isEqualTo(ramfb);
    }

    /** main since ac2ad7de6a: {@code RamFB == nil || RamFB.Enabled == nil || *RamFB.Enabled}. */
    @ParameterizedTest
    @CsvSource({"ABSENT,true", "UNSET,true", "ENABLED,true", "DISABLED,false"})
    void isRamFbSetOfMainIsFalseOnlyForRamFbEnabledFalse(RamFb ramFb, boolean ramfb) {
        assertThat(KubeVirtRelease.V1_10.ramfbBesidePciDisplay(ramFb)).isEqualTo(ramfb);
    }

    /** staging/src/kubevirt.io/api/core/v1/defaults.go SetDefaults_FeatureState, applied only to a present ramFB. */
    @ParameterizedTest
    @CsvSource({"ABSENT,ABSENT", "UNSET,ENABLED", "ENABLED,ENABLED", "DISABLED,DISABLED"})
    void virtApiDefaultsAPresentRamFbWithoutEnabledToEnabled(RamFb written, RamFb stored) {
        assertThat(written.admitted()).isEqualTo(stored);
    }

    @ParameterizedTest
    @CsvSource({"1.9,V1_9", "v1.9,V1_9", "1.9.0,V1_9", "v1.9.0-rc.2,V1_9", "1.10,V1_10", "v1.10.0-alpha.0,V1_10", "main,V1_10", "MAIN,V1_10"})
    void versionsNameTheirRelease(String version, KubeVirtRelease release) {
        assertThat(KubeVirtRelease.parse(version)).isEqualTo(release);
    }

    @Test
    void theNewestReleaseIs19() {
        assertThat(KubeVirtRelease.newest()).isEqualTo(KubeVirtRelease.V1_9);
    }

    @Test
    void aVersionOfAnotherReleaseIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> KubeVirtRelease.parse("1.8"))
                .hasMessage("KubeVirt 1.8 is not a release whose virt-launcher this helper imitates; it knows 1.9 (v1.9.x) and"
                        + " 1.10 (main after v1.9.0)");
    }

    @Test
    void somethingThatIsNoVersionIsRefusedSayingHowToWriteOne() {
        assertThatThrownBy(() -> KubeVirtRelease.parse("latest"))
                .hasMessage("'latest' is not a KubeVirt version (write X.Y, e.g. 1.9); it knows 1.9 (v1.9.x) and 1.10 (main after v1.9.0)");
    }
}
