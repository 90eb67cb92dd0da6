package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.function.IntToDoubleFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The growth rule on synthetic series: 96 samples 5 s apart, the judged part of a 10-minute soak. */
class TrendTest {

    private static final int N = 96;
    private static final double[] MINUTES = IntStream.range(0, N).mapToDouble(i -> i * 5 / 60.0).toArray();

    private static Trend trend(IntToDoubleFunction value, double tolerance) {
        return Trend.of(MINUTES, IntStream.range(0, N).mapToDouble(value).toArray(), tolerance);
    }

    /** A sawtooth of 3 MiB, three times the tolerance, with a period of 7 samples. */
    private static double sawtooth(int i) {
        return (i % 7) * 0.5;
    }

    @Test
    void aFlatSeriesWithAGcSawtoothLargerThanTheToleranceDoesNotRise() {
        Trend t = trend(i -> 10 + sawtooth(i), 1.0);

        assertThat(t.firstThird()).isEqualTo(11.5);
        assertThat(t.lastThird()).isEqualTo(11.5);
        assertThat(t.slopePerMinute()).isEqualTo(0.0);
        assertThat(t.isRising()).isFalse();
    }

    @Test
    void slowLinearGrowthRisesAndTheSlopeMeasuresIt() {
        Trend t = trend(i -> 10 + 0.3 * MINUTES[i], 1.0);

        assertThat(t.firstThird()).isCloseTo(10.3875, within(1e-9));
        assertThat(t.lastThird()).isCloseTo(11.9875, within(1e-9));
        assertThat(t.rise()).isCloseTo(1.6, within(1e-9));
        assertThat(t.slopePerMinute()).isCloseTo(0.3, within(1e-9));
        assertThat(t.isRising()).isTrue();
    }

    @Test
    void slowLinearGrowthUnderASawtoothStillRises() {
        Trend t = trend(i -> 10 + 0.3 * MINUTES[i] + sawtooth(i), 1.0);

        assertThat(t.firstThird()).isCloseTo(11.75, within(1e-9));
        assertThat(t.lastThird()).isCloseTo(13.4125, within(1e-9));
        assertThat(t.slopePerMinute()).isCloseTo(0.3, within(1e-9));
        assertThat(t.isRising()).isTrue();
    }

    @Test
    void aStepUpThatStaysUpRisesEvenThoughTheSlopeIsZero() {
        Trend t = trend(i -> i < 40 ? 25 : 28, 1);

        assertThat(t.firstThird()).isEqualTo(25.0);
        assertThat(t.lastThird()).isEqualTo(28.0);
        assertThat(t.slopePerMinute()).isEqualTo(0.0);
        assertThat(t.isRising()).isTrue();
    }

    @Test
    void aStepUpWithinTheToleranceDoesNotRise() {
        Trend t = trend(i -> i < 40 ? 25 : 26, 1);

        assertThat(t.rise()).isEqualTo(1.0);
        assertThat(t.isRising()).isFalse();
    }

    @Test
    void aSingleSpikeDoesNotRise() {
        Trend t = trend(i -> i == 80 ? 90 : 50, 2);

        assertThat(t.lastThird()).isEqualTo(50.0);
        assertThat(t.isRising()).isFalse();
    }

    @Test
    void aFallingSeriesDoesNotRise() {
        Trend t = trend(i -> 30 - i * 0.1, 0);

        assertThat(t.rise()).isNegative();
        assertThat(t.isRising()).isFalse();
    }

    @Test
    void fewerThanSixValuesCannotBeJudged() {
        assertThatThrownBy(() -> Trend.of(new double[] {0, 1, 2, 3, 4}, new double[] {1, 1, 1, 1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("5 values, at least 6 needed");
    }
}
