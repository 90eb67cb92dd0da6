package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ComparisonSettingsTest {

    @Test
    void thePeerBinaryIsAllItNeedsAndTheRestHasDefaults() {
        ComparisonSettings s = ComparisonSettings.parse("--peer-binary", "/opt/peer/kubevirt-gpu-device-plugin");

        assertThat(s.peerBinary()).hasValue(Path.of("/opt/peer/kubevirt-gpu-device-plugin"));
        assertThat(s.peerName()).isEqualTo("kubevirt-gpu-device-plugin");
        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("image/target/image"), List.of()));
        assertThat(s.runs()).isEqualTo(5);
        assertThat(s.idle()).isEqualTo(Duration.ofSeconds(120));
        assertThat(s.fixture()).isEqualTo(SysfsFixtures.committedRoot().resolve("t4-numa"));
        assertThat(s.logs()).isEmpty();
        assertThat(s.floor()).isFalse();
        assertThat(s.idleFor()).isEmpty();
        assertThat(s.events()).isEqualTo(ComparisonSettings.EventRuns.NONE);
    }

    @Test
    void theFloorIdleAndEventOptionsAreTaken() {
        ComparisonSettings s = ComparisonSettings.parse("--peer-binary", "none", "--floor", "--idle-for", "perf, floor", "--events-for", "perf,no-pool",
                "--event-runs", "20", "--event-rounds", "2");

        assertThat(s.floor()).isTrue();
        assertThat(s.idleFor()).hasValue(java.util.Set.of("perf", "floor"));
        assertThat(s.idleFor("floor")).isTrue();
        assertThat(s.idleFor("no-prestart")).isFalse();
        assertThat(s.events()).isEqualTo(new ComparisonSettings.EventRuns(java.util.Set.of("perf", "no-pool"), 20, 2));
    }

    @Test
    void withoutIdleForEveryContenderIsSampledUnlessIdleIsSkipped() {
        assertThat(ComparisonSettings.parse("--peer-binary", "none").idleFor("anything")).isTrue();
        assertThat(ComparisonSettings.parse("--peer-binary", "none", "--idle-seconds", "0").idleFor("anything")).isFalse();
    }

    @Test
    void everyOptionIsTaken() {
        ComparisonSettings s = ComparisonSettings.parse("--runs", "7", "--peer-binary", "/p", "--peer-name", "NVIDIA v1.6.0",
                "--image", "/base/target/image", "--image", "image/target/image", "--idle-seconds", "0", "--fixture", "/f", "--logs", "/l");

        assertThat(s.peerBinary()).hasValue(Path.of("/p"));
        assertThat(s.peerName()).isEqualTo("NVIDIA v1.6.0");
        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("/base/target/image"), List.of()),
                new ComparisonSettings.OurImage(Path.of("image/target/image"), List.of()));
        assertThat(s.runs()).isEqualTo(7);
        assertThat(s.idle()).isZero();
        assertThat(s.fixture()).isEqualTo(Path.of("/f"));
        assertThat(s.logs()).isEqualTo(Optional.of(Path.of("/l")));
    }

    @Test
    void noPeerMeasuresOursAlone() {
        ComparisonSettings s = ComparisonSettings.parse("--peer-binary", "none");

        assertThat(s.peerBinary()).isEmpty();
        assertThat(s.peerName()).isEqualTo("peer");
    }

    @Test
    void serveArgumentsGoToTheImagesGivenAfterThem() {
        ComparisonSettings s = ComparisonSettings.parse("--peer-binary", "/m", "--image", "/base/target/image", "--serve-arg=--uevents=on",
                "--image", "/new/target/image", "--serve-arg", "--rescan-interval", "--serve-arg", "10m", "--image", "/newer/target/image");

        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("/base/target/image"), List.of()),
                new ComparisonSettings.OurImage(Path.of("/new/target/image"), List.of("--uevents=on")),
                new ComparisonSettings.OurImage(Path.of("/newer/target/image"), List.of("--uevents=on", "--rescan-interval", "10m")));
        assertThat(ComparisonSettings.parse("--peer-binary", "/m", "--serve-arg=--uevents=on").images())
                .containsExactly(new ComparisonSettings.OurImage(Path.of("image/target/image"), List.of("--uevents=on")));
    }

    @Test
    void aServeArgumentAfterTheLastImageWouldApplyToNone() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary", "/m", "--image", "/i", "--serve-arg=--uevents=on"))
                .hasMessageContaining("--serve-arg --uevents=on comes after the last --image");
    }

    @Test
    void fewerThanThreeRunsGiveNoMedianWorthTheName() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary", "/m", "--runs", "2")).hasMessageContaining("--runs 2")
                .hasMessageContaining("at least 3");
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--runs", "5")).hasMessageContaining("--peer-binary PATH is missing");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary", "/m", "--runs", "many")).hasMessageContaining("--runs many: not a whole number");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary", "/m", "--idle-seconds", "-1")).hasMessageContaining("--idle-seconds is negative");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary", "/m", "--jar", "x.jar")).hasMessageContaining("unknown argument --jar");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer-binary")).hasMessageContaining("--peer-binary needs a value");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/mirror")).hasMessageContaining("unknown argument --peer");
    }
}
