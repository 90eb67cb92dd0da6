package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class IdleCostTest {

    @Test
    void ratesAreScaledFromThePeriodToAnHourAndAMinute() {
        IdleCost cost = new IdleCost(Duration.ofSeconds(120), 600, 1000, 20, OptionalLong.empty());

        assertThat(cost.cpuSecondsPerHour()).isEqualTo(18.0);
        assertThat(cost.wakeupsPerMinute()).isEqualTo(500.0);
        assertThat(cost.source()).contains("/proc");
    }

    @Test
    void perfsCountWinsOverTheSampledOneAsItSeesShortLivedThreadsToo() {
        IdleCost cost = new IdleCost(Duration.ofSeconds(60), 0, 1000, 20, OptionalLong.of(1300));

        assertThat(cost.wakeupsPerMinute()).isEqualTo(1300.0);
        assertThat(cost.source()).contains("perf");
    }

    @Test
    void perfsCsvLineIsParsedAndAProcessThatNeverRanCountsNone() {
        assertThat(IdleCost.parsePerfCsv("1177,,context-switches,4000123,100.00,,\n")).isEqualTo(OptionalLong.of(1177));
        assertThat(IdleCost.parsePerfCsv("<not counted>,,context-switches,0,0.00,,\n")).isEqualTo(OptionalLong.of(0));
        assertThat(IdleCost.parsePerfCsv("<not supported>,,context-switches,0,100.00,,\n")).isEmpty();
        assertThat(IdleCost.parsePerfCsv("Error:\nNo permission to enable context-switches event.\n")).isEmpty();
    }

    @Test
    void aSleepingProcessCostsNothingAndItsOwnThreadsAreSeen() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            IdleCost cost = IdleCost.measure(sleeper.pid(), Duration.ofSeconds(1));

            assertThat(cost.cpuMillis()).isZero();
            assertThat(cost.sampledSwitches()).isZero();
            assertThat(cost.threadsSeen()).isEqualTo(1);
        } finally {
            sleeper.destroy();
            sleeper.waitFor();
        }
    }
}
