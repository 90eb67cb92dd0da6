package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EventBenchesTest {

    @Test
    void aChangesLatenciesGoIntoTheSamplesInMilliseconds() {
        RunSamples s = new RunSamples();

        EventBenches.add(s, "hot-remove of the card (4 functions) -> GPU Unhealthy\t6500000,7250000");

        assertThat(s.of(EventBenches.PREFIX + "hot-remove of the card (4 functions) -> GPU Unhealthy")).containsExactly(6.5, 7.25);
    }

    @Test
    void aBenchsOtherTimingsAreLeftOut() {
        RunSamples s = new RunSamples();

        EventBenches.add(s, "one scan + policy pass, unchanged host\t1600000");

        assertThat(s.figures()).isEmpty();
    }

    @Test
    void anImageBuiltInACheckoutLeadsToIt() {
        assertThat(EventBenches.checkout(Path.of("/work/v/no-pool/image/target/image"))).hasValue(Path.of("/work/v/no-pool"));
        assertThat(EventBenches.checkout(Path.of("/tmp/image-copy"))).isEmpty();
    }
}
