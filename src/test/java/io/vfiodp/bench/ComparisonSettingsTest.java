package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ComparisonSettingsTest {

    @Test
    void thePeerMirrorIsAllItNeedsAndTheRestHasDefaults() {
        ComparisonSettings s = ComparisonSettings.parse("--peer", "/mirror");

        assertThat(s.peerMirror()).isEqualTo(Path.of("/mirror"));
        assertThat(s.buildScript()).isEqualTo(Path.of("/work/shared/peers/build-nvidia-kubevirt-gpu-device-plugin.sh"));
        assertThat(s.runScript()).isEqualTo(Path.of("/work/shared/peers/run-nvidia-on-fixture.sh"));
        assertThat(s.peerOut()).isEqualTo(Path.of("/tmp/peers"));
        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("target/image"), List.of()));
        assertThat(s.runs()).isEqualTo(5);
        assertThat(s.idle()).isEqualTo(Duration.ofSeconds(120));
        assertThat(s.fixture()).isEqualTo(Path.of("src/test/resources/sysfs-fixtures/t4-numa"));
        assertThat(s.logs()).isEmpty();
    }

    @Test
    void everyOptionIsTaken() {
        ComparisonSettings s = ComparisonSettings.parse("--runs", "7", "--peer", "/m", "--peer-scripts", "/s", "--peer-out", "/o",
                "--image", "/base/target/image", "--image", "target/image", "--idle-seconds", "0", "--fixture", "/f", "--logs", "/l");

        assertThat(s.runScript()).isEqualTo(Path.of("/s/run-nvidia-on-fixture.sh"));
        assertThat(s.peerOut()).isEqualTo(Path.of("/o"));
        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("/base/target/image"), List.of()),
                new ComparisonSettings.OurImage(Path.of("target/image"), List.of()));
        assertThat(s.runs()).isEqualTo(7);
        assertThat(s.idle()).isZero();
        assertThat(s.fixture()).isEqualTo(Path.of("/f"));
        assertThat(s.logs()).isEqualTo(Optional.of(Path.of("/l")));
    }

    @Test
    void serveArgumentsGoToTheImagesGivenAfterThem() {
        ComparisonSettings s = ComparisonSettings.parse("--peer", "/m", "--image", "/base/target/image", "--serve-arg=--uevents=on",
                "--image", "/new/target/image", "--serve-arg", "--rescan-interval", "--serve-arg", "10m", "--image", "/newer/target/image");

        assertThat(s.images()).containsExactly(new ComparisonSettings.OurImage(Path.of("/base/target/image"), List.of()),
                new ComparisonSettings.OurImage(Path.of("/new/target/image"), List.of("--uevents=on")),
                new ComparisonSettings.OurImage(Path.of("/newer/target/image"), List.of("--uevents=on", "--rescan-interval", "10m")));
        assertThat(ComparisonSettings.parse("--peer", "/m", "--serve-arg=--uevents=on").images())
                .containsExactly(new ComparisonSettings.OurImage(Path.of("target/image"), List.of("--uevents=on")));
    }

    @Test
    void aServeArgumentAfterTheLastImageWouldApplyToNone() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/m", "--image", "/i", "--serve-arg=--uevents=on"))
                .hasMessageContaining("--serve-arg --uevents=on comes after the last --image");
    }

    @Test
    void fewerThanThreeRunsGiveNoMedianWorthTheName() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/m", "--runs", "2")).hasMessageContaining("--runs 2")
                .hasMessageContaining("at least 3");
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> ComparisonSettings.parse("--runs", "5")).hasMessageContaining("--peer GIT_DIR is missing");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/m", "--runs", "many")).hasMessageContaining("--runs many: not a whole number");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/m", "--idle-seconds", "-1")).hasMessageContaining("--idle-seconds is negative");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer", "/m", "--jar", "x.jar")).hasMessageContaining("unknown argument --jar");
        assertThatThrownBy(() -> ComparisonSettings.parse("--peer")).hasMessageContaining("--peer needs a value");
    }
}
