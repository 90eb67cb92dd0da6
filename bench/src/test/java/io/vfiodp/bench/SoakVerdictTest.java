package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SoakVerdictTest {

    private static final Duration WARMUP = Duration.ofMinutes(2);

    /** A 10-minute run sampled every 5 s; {@code threads} as given, everything else flat. */
    private static List<SoakSample> run(java.util.function.IntUnaryOperator threads) {
        return IntStream.rangeClosed(1, 120)
                .mapToObj(i -> new SoakSample(Duration.ofSeconds(5L * i), 90.0, 9.5, 18.8, threads.applyAsInt(i), 25, 100L * i, i / 5, i * 5))
                .toList();
    }

    @Test
    void aFlatRunIsSteadyWithOneOkLinePerMetric() {
        SoakVerdict v = SoakVerdict.of(run(i -> 25), WARMUP);

        assertThat(v.passed()).isTrue();
        assertThat(v.lines()).containsExactly(
                "ok:   RSS from 90.0 MiB to 90.0 MiB (+0.0 MiB, tolerance 4.0 MiB; Theil-Sen slope +0.00 MiB/min)",
                "ok:   heap after GC from 9.5 MiB to 9.5 MiB (+0.0 MiB, tolerance 0.5 MiB; Theil-Sen slope +0.00 MiB/min)",
                "ok:   metaspace from 18.8 MiB to 18.8 MiB (+0.0 MiB, tolerance 0.5 MiB; Theil-Sen slope +0.00 MiB/min)",
                "ok:   threads from 25 to 25 (+0, tolerance 1; Theil-Sen slope +0.00/min)",
                "ok:   open FDs from 25 to 25 (+0, tolerance 2; Theil-Sen slope +0.00/min)");
    }

    @Test
    void growthDuringWarmUpIsNotJudged() {
        SoakVerdict v = SoakVerdict.of(run(i -> Math.min(i, 24) + 10), WARMUP);

        assertThat(v).isInstanceOf(SoakVerdict.Steady.class);
    }

    @Test
    void aThreadPerMinuteFailsNamingTheMetricAndItsTrend() {
        SoakVerdict v = SoakVerdict.of(run(i -> 20 + i / 12), WARMUP);

        assertThat(v.passed()).isFalse();
        assertThat(((SoakVerdict.Rising) v).rising()).containsExactly(SoakMetric.THREADS);
        assertThat(v.lines()).contains("FAIL: threads trends upward: from 23 to 28 (+5, tolerance 1; Theil-Sen slope +0.98/min)"
                + " between the first and the last third of the samples after warm-up");
    }

    @Test
    void tooFewSamplesAfterWarmUpFailWithAHint() {
        SoakVerdict v = SoakVerdict.of(run(i -> 25).subList(0, 27), WARMUP);

        assertThat(v).isEqualTo(new SoakVerdict.TooFewSamples(4, 6, WARMUP));
        assertThat(v.passed()).isFalse();
        assertThat(v.lines()).containsExactly("FAIL: only 4 sample(s) after the 120 s warm-up, 6 needed to judge a trend:"
                + " run longer, sample more often or shorten --warmup");
    }
}
