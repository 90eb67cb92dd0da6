package io.vfiodp.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/** Every run's value of each figure of one contender, in the order the figures were first recorded. */
final class RunSamples {

    /** The figures every counted run records, and whether a user sees them (the figures a mechanism must buy 10% of). */
    enum Figure {
        REGISTERED("start → all resources registered, t4-numa", "ms", true),
        LISTED("start → all registered with full lists, 1,410-function node", "ms", true),
        START_CPU("CPU used by registration, t4-numa", "ms", false),
        HWM("VmHWM after registration + Allocates", "MiB", false),
        RSS("VmRSS after registration + Allocates", "MiB", false),
        RSS_ANON("of it anonymous (RssAnon)", "MiB", false),
        RSS_FILE("of it file-backed (RssFile + RssShmem)", "MiB", false),
        FIRST_ALLOCATE("the first Allocate after registration", "µs", true),
        EARLY_P50("Allocate p50 of the first " + PluginRun.EARLY, "µs", true),
        EARLY_P99("Allocate p99 of the first " + PluginRun.EARLY, "µs", true),
        P50("Allocate p50 after warm-up", "µs", true),
        P99("Allocate p99 after warm-up", "µs", true),
        IDLE_CPU("idle CPU, 1,410-function node", "CPU-s/h", true),
        IDLE_WAKEUPS("idle wake-ups, 1,410-function node", "/min", false);

        final String label;
        final String unit;
        final boolean userSees;

        Figure(String label, String unit, boolean userSees) {
            this.label = label;
            this.unit = unit;
            this.userSees = userSees;
        }

        String key() {
            return label;
        }
    }

    private final Map<String, List<Double>> values = new LinkedHashMap<>();

    void add(Figure figure, double value) {
        add(figure.key(), value);
    }

    /** A figure measured elsewhere (the event benches), by its printed name. */
    void add(String figure, double value) {
        values.computeIfAbsent(figure, k -> new ArrayList<>()).add(value);
    }

    List<Double> of(Figure figure) {
        return of(figure.key());
    }

    List<Double> of(String figure) {
        return List.copyOf(values.getOrDefault(figure, List.of()));
    }

    double last(Figure figure) {
        return values.get(figure.key()).getLast();
    }

    OptionalDouble median(String figure) {
        List<Double> v = values.get(figure);
        return v == null || v.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(ComparisonTable.median(v));
    }

    OptionalDouble median(Figure figure) {
        return median(figure.key());
    }

    /** The names of the figures recorded, in order. */
    List<String> figures() {
        return List.copyOf(values.keySet());
    }
}
