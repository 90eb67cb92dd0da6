package io.vfiodp.bench;

import io.vfiodp.deploy.ShippedJvmFlags;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SoakSettingsTest {

    @Test
    void withoutArgumentsItSoaksTheShippedJarForTenMinutesWithTheShippedFlags() {
        SoakSettings s = SoakSettings.parse();

        assertThat(s.length()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.sampleEvery()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.warmup()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.restartEvery()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.flapEvery()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.clients()).isEqualTo(3);
        assertThat(s.clientPause()).isEqualTo(Duration.ofMillis(20));
        assertThat(s.fixture()).isEqualTo(SysfsFixtures.committedRoot().resolve("t4-numa"));
        assertThat(s.jvmFlags()).isEqualTo(ShippedJvmFlags.read());
        assertThat(s.launch()).containsExactly("-jar", "agent/target/vfio-device-plugin.jar");
    }

    @Test
    void theDefaultWarmUpIsAFifthOfTheRunButAtLeastAMinuteWhenTheRunIsLongerThanThat() {
        assertThat(SoakSettings.defaultWarmup(Duration.ofMinutes(30))).isEqualTo(Duration.ofMinutes(6));
        assertThat(SoakSettings.defaultWarmup(Duration.ofMinutes(3))).isEqualTo(Duration.ofMinutes(1));
        assertThat(SoakSettings.defaultWarmup(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(12));
    }

    @Test
    void optionsTakeSecondsOrMinutesAndFlagsAfterTheDashesReplaceTheShippedOnes() {
        SoakSettings s = SoakSettings.parse("--minutes", "0.5", "--sample-seconds", "1", "--warmup", "0.1m", "--restart-seconds", "2.5",
                "--clients", "1", "--classpath", "a.jar:b", "--java", "/opt/jdk/bin/java", "--", "-Xmx16m", "-XX:+UseSerialGC");

        assertThat(s.length()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.warmup()).isEqualTo(Duration.ofSeconds(6));
        assertThat(s.restartEvery()).isEqualTo(Duration.ofMillis(2500));
        assertThat(s.command()).containsExactly("/opt/jdk/bin/java", "-Xmx16m", "-XX:+UseSerialGC", "-cp", "a.jar:b", "io.vfiodp.cli.Main");
    }

    @Test
    void aWarmUpAsLongAsTheRunIsRefused() {
        assertThatThrownBy(() -> SoakSettings.parse("--minutes", "1", "--warmup", "60"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warmup 60 s must be shorter than the run (60 s)");
    }

    @Test
    void anUnknownOptionIsNamedWithTheUsage() {
        assertThatThrownBy(() -> SoakSettings.parse("--hours", "2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown argument --hours\nusage: ");
    }

    @Test
    void aValueThatIsNotANumberIsNamed() {
        assertThatThrownBy(() -> SoakSettings.parse("--sample-seconds", "often"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--sample-seconds often: not a number of seconds (or minutes with m)");
    }
}
