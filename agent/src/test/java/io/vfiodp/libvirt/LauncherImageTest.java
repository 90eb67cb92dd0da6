package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code status.launcherContainerImageVersion} is the compute container's image
 * (kubevirt/kubevirt {@code pkg/virt-controller/watch/vmi/lifecycle.go}, setLauncherContainerInfo,
 * v1.9.0 79d34c1762): its tag names the release, anything else names none.
 */
class LauncherImageTest {

    @ParameterizedTest
    @CsvSource({
        "quay.io/kubevirt/virt-launcher:v1.9.0,V1_9",
        "registry.local:5000/kubevirt/virt-launcher:v1.9.3,V1_9",
        "quay.io/kubevirt/virt-launcher:v1.10.0-rc.0,V1_10",
        "quay.io/kubevirt/virt-launcher:v1.9.0@sha256:0d4f36b2a1e1cc9a1c1f0b5b3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5,V1_9",
        "v1.9.0,V1_9"})
    void aTaggedImageNamesItsRelease(String image, KubeVirtRelease release) {
        assertThat(LauncherImage.of(Optional.of(image))).isEqualTo(new LauncherImage.Recognised(release, image));
    }

    @Test
    void anAbsentFieldNamesNoRelease() {
        assertThat(LauncherImage.of(Optional.empty())).isEqualTo(new LauncherImage.Unrecognised(
                "status.launcherContainerImageVersion is not set (virt-controller sets it once the virt-launcher pod exists)"));
    }

    @Test
    void anImageNamedByDigestAloneNamesNoRelease() {
        String image = "quay.io/kubevirt/virt-launcher@sha256:0d4f36b2a1e1cc9a1c1f0b5b3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5";
        assertThat(LauncherImage.of(Optional.of(image))).isEqualTo(new LauncherImage.Unrecognised(
                "status.launcherContainerImageVersion '" + image + "' names the image by digest alone, which names no KubeVirt version"));
    }

    @Test
    void anUntaggedImageOnARegistryWithAPortNamesNoRelease() {
        assertThat(LauncherImage.of(Optional.of("registry.local:5000/kubevirt/virt-launcher"))).isEqualTo(new LauncherImage.Unrecognised(
                "status.launcherContainerImageVersion 'registry.local:5000/kubevirt/virt-launcher' has no tag, which names no KubeVirt version"));
    }

    @Test
    void aTagThatIsNoVersionNamesNoRelease() {
        assertThat(LauncherImage.of(Optional.of("quay.io/kubevirt/virt-launcher:devel"))).isEqualTo(new LauncherImage.Unrecognised(
                "status.launcherContainerImageVersion 'quay.io/kubevirt/virt-launcher:devel' has the tag 'devel', which is not a KubeVirt version"));
    }

    @Test
    void aVersionOfAnotherReleaseNamesNoReleaseOfOurs() {
        assertThat(LauncherImage.of(Optional.of("quay.io/kubevirt/virt-launcher:v1.8.2"))).isEqualTo(new LauncherImage.Unrecognised(
                "status.launcherContainerImageVersion 'quay.io/kubevirt/virt-launcher:v1.8.2' names KubeVirt v1.8.2, not a release whose"
                        + " virt-launcher this helper imitates (it knows 1.9 (v1.9.x) and 1.10 (main after v1.9.0))"));
    }
}
