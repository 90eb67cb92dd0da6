package io.vfiodp.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Event → ListAndWatch latency of several checkouts in one alternation: each runs
 * {@code io.vfiodp.serve.UeventLatencyBench} (kernel uevents, the 1,410-function node) and {@link HealthLatencyBench}
 * ({@code /dev/vfio} and the periodic rescan, t4-numa) in a JVM of its own, on its own classes
 * ({@code CHECKOUT/agent/target/vfio-device-plugin.jar}, {@code CHECKOUT/bench/target/test-classes} and {@code bench-lib}), from its
 * own directory, round after round, the checkouts' order rotating. Both benches run serve in that
 * JVM, on this bench's JDK; each latency goes into the samples as a figure {@code event: WHAT}, so
 * that the median is the p50 of every run of every round.
 */
final class EventBenches {

    /** What the event figures are called in the samples: the bench's own name of the change, after this. */
    static final String PREFIX = "event: ";
    private static final List<String> BENCHES = List.of("io.vfiodp.serve.UeventLatencyBench", HealthLatencyBench.class.getName());

    private EventBenches() {}

    /** The checkout an image was built in: {@code CHECKOUT} of {@code CHECKOUT/image/target/image}. */
    static Optional<Path> checkout(Path image) {
        Path p = image.toAbsolutePath().normalize();
        return p.endsWith(Path.of("image", "target", "image")) ? Optional.of(p.getParent().getParent().getParent()) : Optional.empty();
    }

    /** Runs the benches for each checkout, {@code rounds} times, {@code runs} each, adding the latencies to its samples. */
    static void run(Map<Path, RunSamples> checkouts, int runs, int rounds, Path work) throws IOException, InterruptedException {
        List<Path> order = new ArrayList<>(checkouts.keySet());
        for (int round = 1; round <= rounds; round++) {
            for (Path checkout : order) {
                for (String bench : BENCHES) {
                    Path raw = work.resolve("events-" + round + "-" + checkout.getFileName() + "-" + bench.substring(bench.lastIndexOf('.') + 1));
                    Path log = Path.of(raw + ".log");
                    int exit = new ProcessBuilder(command(checkout, bench, runs, raw)).directory(checkout.toFile()).redirectErrorStream(true)
                            .redirectOutput(log.toFile()).start().waitFor();
                    if (exit != 0) {
                        List<String> lines = Files.readAllLines(log);
                        throw new IOException(bench + " in " + checkout + " exited with " + exit + "; the end of its output:\n"
                                + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
                    }
                    for (String line : Files.readAllLines(raw)) add(checkouts.get(checkout), line);
                }
                System.out.println("events: round " + round + " of " + rounds + " done for " + checkout.getFileName());
            }
            Collections.rotate(order, -1);
        }
    }

    private static List<String> command(Path checkout, String bench, int runs, Path raw) {
        Path benchTarget = checkout.resolve("bench/target");
        String classPath = String.join(":", checkout.resolve("agent/target/vfio-device-plugin.jar").toString(),
                benchTarget.resolve("test-classes").toString(), benchTarget.resolve("bench-lib") + "/*");
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-D" + ListAndWatchLatency.RAW_PROPERTY + "=" + raw, "-cp", classPath, bench,
                "--runs", Integer.toString(runs));
    }

    /**
     * One raw line, {@code WHAT<TAB>NANOS,...}, into the samples in milliseconds; only a change's
     * latency (a name with "->"), not a bench's other timings.
     */
    static void add(RunSamples samples, String line) {
        int tab = line.indexOf('\t');
        if (tab < 0) throw new IllegalArgumentException("not a raw latency line: " + line);
        String what = line.substring(0, tab);
        if (!what.contains("->")) return;
        for (String nanos : line.substring(tab + 1).split(",")) samples.add(PREFIX + what, Long.parseLong(nanos) / 1e6);
    }
}
