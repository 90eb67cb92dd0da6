package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionProviderTest {

    @Test
    void namesTheVersionAndTheCommitTheBuildRecorded() {
        assertThat(VersionProvider.describe("0.1.0", "7089ed808ea4")).isEqualTo("vfio-device-plugin 0.1.0 (commit 7089ed808ea4)");
    }

    @Test
    void aPropertyMavenCouldNotFillCountsAsUnknown() {
        // a build without .git and without GIT_COMMIT leaves the property's name in the manifest
        assertThat(VersionProvider.describe("0.1.0", "${git.commit.id.abbrev}")).isEqualTo("vfio-device-plugin 0.1.0 (commit unknown)");
        assertThat(VersionProvider.describe("0.1.0", "")).isEqualTo("vfio-device-plugin 0.1.0 (commit unknown)");
        assertThat(VersionProvider.describe(null, null)).isEqualTo("vfio-device-plugin dev (commit unknown)");
    }
}
