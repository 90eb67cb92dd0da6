package io.vfiodp.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the samples after warm-up say about growth. */
sealed interface SoakVerdict {

    /** Every metric stayed within its tolerance. */
    record Steady(Map<SoakMetric, Trend> trends) implements SoakVerdict {
        public Steady {
            trends = Map.copyOf(trends);
        }
    }

    /** At least one metric rose by more than its tolerance. */
    record Rising(Map<SoakMetric, Trend> trends) implements SoakVerdict {
        public Rising {
            trends = Map.copyOf(trends);
            if (trends.values().stream().noneMatch(Trend::isRising)) throw new IllegalArgumentException("nothing rises in " + trends);
        }

        List<SoakMetric> rising() {
            return trends.keySet().stream().sorted().filter(m -> trends.get(m).isRising()).toList();
        }
    }

    /** Too little of the run was left after warm-up to judge a trend. */
    record TooFewSamples(int afterWarmup, int needed, Duration warmup) implements SoakVerdict {}

    /** Judges the samples taken after {@code warmup}. */
    static SoakVerdict of(List<SoakSample> samples, Duration warmup) {
        List<SoakSample> steady = samples.stream().filter(s -> s.elapsed().compareTo(warmup) >= 0).toList();
        if (steady.size() < Trend.MIN_VALUES) return new TooFewSamples(steady.size(), Trend.MIN_VALUES, warmup);
        double[] minutes = steady.stream().mapToDouble(SoakSample::minutes).toArray();
        Map<SoakMetric, Trend> trends = new EnumMap<>(SoakMetric.class);
        for (SoakMetric m : SoakMetric.values()) {
            trends.put(m, Trend.of(minutes, steady.stream().mapToDouble(m::of).toArray(), m.tolerance()));
        }
        return trends.values().stream().anyMatch(Trend::isRising) ? new Rising(trends) : new Steady(trends);
    }

    /** One line per metric, the failing ones saying what rose from what to what. */
    default List<String> lines() {
        List<String> out = new ArrayList<>();
        switch (this) {
            case TooFewSamples t -> out.add(String.format(Locale.ROOT,
                    "FAIL: only %d sample(s) after the %d s warm-up, %d needed to judge a trend: run longer, sample more often or shorten --warmup",
                    t.afterWarmup(), t.warmup().toSeconds(), t.needed()));
            case Steady s -> describe(s.trends(), out);
            case Rising r -> describe(r.trends(), out);
        }
        return out;
    }

    private static void describe(Map<SoakMetric, Trend> trends, List<String> out) {
        for (SoakMetric m : SoakMetric.values()) {
            Trend t = trends.get(m);
            String figures = String.format(Locale.ROOT, "from %s to %s (%s, tolerance %s; Theil-Sen slope %s/min)",
                    m.format(t.firstThird()), m.format(t.lastThird()), m.formatChange(t.rise()),
                    m.format(t.tolerance()), m.formatSigned(t.slopePerMinute()));
            out.add(t.isRising()
                    ? "FAIL: " + m.label() + " trends upward: " + figures + " between the first and the last third of the samples after warm-up"
                    : "ok:   " + m.label() + " " + figures);
        }
    }

    default boolean passed() {
        return this instanceof Steady;
    }
}
