package io.vfiodp.bench;

import io.vfiodp.bench.RunSamples.Figure;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/** The comparison's result: one row per figure, ours next to the peer's (when it ran) and ours ÷ peer against the goal. */
final class ComparisonTable {

    /**
     * @param goal the largest ratio ours ÷ peer the project aims for or, when {@code goalIsRatio} is
     *             false, the largest value of ours (idle CPU: a Go plugin such as NVIDIA's does nothing when idle);
     *             empty for a figure shown for information
     */
    record Row(String figure, String unit, double ours, OptionalDouble peer, OptionalDouble goal, boolean goalIsRatio) {
        OptionalDouble ratio() {
            return peer.isPresent() && peer.getAsDouble() > 0 ? OptionalDouble.of(ours / peer.getAsDouble()) : OptionalDouble.empty();
        }

        /** Empty when there is no goal, or the goal is a ratio and the peer did not run. */
        Optional<Boolean> met() {
            if (goal.isEmpty()) return Optional.empty();
            if (!goalIsRatio) return Optional.of(ours <= goal.getAsDouble());
            return ratio().isPresent() ? Optional.of(ratio().getAsDouble() <= goal.getAsDouble()) : Optional.empty();
        }
    }

    private final List<Row> rows = new ArrayList<>();

    /** Ours against the peer: start-up, memory and Allocate with the project's goals, and idle cost when it was sampled. */
    static ComparisonTable of(RunSamples o, Optional<RunSamples> p) {
        ComparisonTable t = new ComparisonTable()
                .add(ratioRow(o, p, Figure.REGISTERED, OptionalDouble.of(2)))
                .add(ratioRow(o, p, Figure.LISTED, OptionalDouble.of(2)))
                .add(ratioRow(o, p, Figure.HWM, OptionalDouble.of(2.5)))
                .add(ratioRow(o, p, Figure.P50, OptionalDouble.of(1)))
                .add(ratioRow(o, p, Figure.START_CPU, OptionalDouble.empty()))
                .add(ratioRow(o, p, Figure.FIRST_ALLOCATE, OptionalDouble.empty()))
                .add(ratioRow(o, p, Figure.EARLY_P50, OptionalDouble.empty()));
        if (o.median(Figure.IDLE_CPU).isPresent()) {
            t.add(new ComparisonTable.Row(Figure.IDLE_CPU.label, Figure.IDLE_CPU.unit, o.median(Figure.IDLE_CPU).getAsDouble(),
                    p.map(s -> s.median(Figure.IDLE_CPU)).orElse(OptionalDouble.empty()), OptionalDouble.of(5), false));
            t.add(new ComparisonTable.Row(Figure.IDLE_WAKEUPS.label, Figure.IDLE_WAKEUPS.unit, o.median(Figure.IDLE_WAKEUPS).getAsDouble(),
                    p.map(s -> s.median(Figure.IDLE_WAKEUPS)).orElse(OptionalDouble.empty()), OptionalDouble.empty(), false));
        }
        return t;
    }

    private static ComparisonTable.Row ratioRow(RunSamples ours, Optional<RunSamples> peer, Figure figure, OptionalDouble goal) {
        return new ComparisonTable.Row(figure.label, figure.unit, ours.median(figure).orElseThrow(),
                peer.map(s -> s.median(figure)).orElse(OptionalDouble.empty()), goal, true);
    }

    ComparisonTable add(Row row) {
        rows.add(row);
        return this;
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The median of the values; of an even count, the mean of the middle two. */
    static double median(List<? extends Number> values) {
        if (values.isEmpty()) throw new IllegalArgumentException("no values");
        double[] v = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    /** A markdown table (docs/benchmarks.md's and the issues' form). */
    List<String> lines(String peerName) {
        List<String> out = new ArrayList<>();
        out.add("| figure | ours | " + peerName + " | ours ÷ " + peerName + " | goal | met |");
        out.add("|---|---|---|---|---|---|");
        for (Row r : rows) {
            String ratio = r.ratio().isPresent() ? String.format(Locale.ROOT, "%.2f×", r.ratio().getAsDouble()) : "–";
            String goal = r.goal().isEmpty() ? "–" : r.goalIsRatio() ? "≤ " + number(r.goal().getAsDouble()) + "×"
                    : "≤ " + number(r.goal().getAsDouble()) + " " + r.unit();
            String met = r.met().map(m -> m ? "yes" : "no").orElse("–");
            out.add("| " + r.figure() + " | " + number(r.ours()) + " " + r.unit() + " | "
                    + (r.peer().isPresent() ? number(r.peer().getAsDouble()) + " " + r.unit() : "not run") + " | " + ratio + " | " + goal + " | " + met + " |");
        }
        return out;
    }

    private static String number(double v) {
        if (v >= 100 || v == Math.rint(v)) return String.format(Locale.ROOT, "%,.0f", v);
        return String.format(Locale.ROOT, v >= 10 ? "%.1f" : "%.2f", v);
    }
}
