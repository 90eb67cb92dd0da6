package io.vfiodp.bench;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * What the soak watches for growth, each with the rise it tolerates between the first and the
 * last third of the samples after warm-up. The tolerances sit above what a healthy run varies by
 * on the loaded 2-core build machine (see docs/benchmarks.md, "Soak") and below what a leak of one object graph
 * per kubelet restart or per allocation adds in a 10-minute run.
 */
enum SoakMetric {
    RSS("RSS", "MiB", 4.0, SoakSample::rssMiB),
    HEAP("heap after GC", "MiB", 0.5, SoakSample::heapMiB),
    METASPACE("metaspace", "MiB", 0.5, SoakSample::metaspaceMiB),
    THREADS("threads", "", 1, SoakSample::threads),
    FDS("open FDs", "", 2, SoakSample::fds);

    private final String label;
    private final String unit;
    private final double tolerance;
    private final ToDoubleFunction<SoakSample> value;

    SoakMetric(String label, String unit, double tolerance, ToDoubleFunction<SoakSample> value) {
        this.label = label;
        this.unit = unit;
        this.tolerance = tolerance;
        this.value = value;
    }

    String label() {
        return label;
    }

    /** The allowed rise, in {@link #format} units. */
    double tolerance() {
        return tolerance;
    }

    double of(SoakSample s) {
        return value.applyAsDouble(s);
    }

    /** {@code 12.3 MiB} or {@code 41}: one decimal for sizes, whole numbers for counts (medians of counts may end in .5). */
    String format(double v) {
        if (unit.isEmpty()) return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
        return String.format(Locale.ROOT, "%.1f %s", v, unit);
    }

    /** A change with its sign, at the precision of {@link #format}: {@code +0.3 MiB}, {@code -1}, {@code +0}. */
    String formatChange(double v) {
        double shown = unit.isEmpty() && v == Math.rint(v) ? v : Math.round(v * 10) / 10.0;
        String sign = shown < 0 ? "-" : "+";
        return sign + format(Math.abs(shown));
    }

    /** A rate with its sign and two decimals: {@code +0.25 MiB}, {@code -0.50}. */
    String formatSigned(double v) {
        return String.format(Locale.ROOT, "%+.2f", v) + (unit.isEmpty() ? "" : " " + unit);
    }
}
