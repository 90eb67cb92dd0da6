package io.vfiodp.bench;

import io.vfiodp.handover.HandoverRecordFile;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.ServeJvm;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Soaks the plugin: runs {@code serve} as its own process on a copy of a fixture node against the
 * kubelet simulator for a set time while {@link SoakLoad} restarts the kubelet, flaps device
 * health and allocates, samples the process ({@link ProcessProbe}) every few seconds into a table,
 * and fails (exit status 1, naming the metric and its trend) when RSS, heap after GC, metaspace,
 * threads or open descriptors trend upward after warm-up ({@link SoakVerdict}), or when anything
 * unexpected happened: an error the kubelet API does not allow for, the plugin dying, not coming
 * back to the starting device list, or not exiting 0 on SIGTERM. Usage: {@link SoakSettings#USAGE}.
 */
public final class SoakBench {

    static final String HEADER = String.format(Locale.ROOT, "%8s %8s %9s %9s %8s %5s %12s %9s %7s",
            "elapsed", "RSS MiB", "heap MiB", "meta MiB", "threads", "FDs", "allocations", "restarts", "flaps");
    private static final Pattern METRICS_LINE = Pattern.compile("metrics on (http://[^/\\s]+)/metrics");
    private static final Pattern ERROR_LINE = Pattern.compile("^\\S+ ERROR |^Exception in thread ");
    private static final Pattern WARN_LINE = Pattern.compile("^\\S+ WARN (.*)$");
    private static final Pattern PCI_ADDRESS = Pattern.compile("\\b[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]\\b");
    private static final int WARN_KINDS = 8;
    private static final Duration START_WAIT = Duration.ofSeconds(60);
    private static final int HISTOGRAM_TOP = 10;

    private final SoakSettings settings;
    private final PrintStream out;
    private final SoakErrors errors = new SoakErrors();
    private Optional<HeapHistogram> histogramAfterWarmup = Optional.empty();
    private Optional<HeapHistogram> histogramAtEnd = Optional.empty();

    SoakBench(SoakSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        SoakSettings settings;
        try {
            settings = SoakSettings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new SoakBench(settings, System.out).run());
    }

    /** Runs the soak, prints the table and the verdict; 0 when it passed, 1 when it failed. */
    int run() throws IOException, InterruptedException {
        Path temp = Files.createTempDirectory("vfio-dp-soak-");
        boolean keep = true;
        try {
            boolean passed = soak(temp);
            keep = !passed;
            return passed ? 0 : 1;
        } finally {
            if (keep) out.println("kept the run's files for a look: " + temp + " (plugin log: " + temp.resolve("plugin.log") + ")");
            else Trees.deleteRecursively(temp);
        }
    }

    private boolean soak(Path temp) throws IOException, InterruptedException {
        Path node = temp.resolve("node");
        Trees.copy(settings.fixture(), node);
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        Path log = temp.resolve("plugin.log");
        Map<String, List<ExposedDevice>> served = servedDevices(node);
        List<String> resources = List.copyOf(served.keySet());
        List<Integer> flapGroups = served.values().stream().flatMap(Collection::stream).filter(d -> d.health().isHealthy())
                .map(ExposedDevice::iommuGroup).distinct().sorted().toList();
        out.printf(Locale.ROOT, "soak: java %s, %d CPUs, load average %s; fixture %s; resources %s; flapping /dev/vfio/%s%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), loadAverage(), settings.fixture(), resources, flapGroups);
        List<String> command = new ArrayList<>(settings.command());
        command.add("serve");
        command.addAll(ServeJvm.serveOptions(node, plugins));
        out.println("plugin: " + String.join(" ", command));
        out.printf(Locale.ROOT, "load: a kubelet restart every %s, a /dev/vfio node flap every %s, %d client(s) calling GetPreferredAllocation + Allocate"
                        + " (%d ms pause), /healthz /readyz /metrics every 2 s%n", seconds(settings.restartEvery()), seconds(settings.flapEvery()),
                settings.clients(), settings.clientPause().toMillis());
        out.printf(Locale.ROOT, "sampling every %s for %s; the first %s are warm-up, shown but not judged%n", seconds(settings.sampleEvery()),
                seconds(settings.length()), seconds(settings.warmup()));
        out.flush();

        List<SoakSample> samples = new ArrayList<>();
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
            Process plugin = pb.start();
            try {
                Optional<Map<String, List<String>>> initial = awaitServing(kubelet, resources, plugin, log);
                if (initial.isPresent() && loadAndSample(kubelet, plugin, node, resources, flapGroups, log, samples)) {
                    checkBackToStart(kubelet, initial.get());
                    stop(plugin, plugins);
                }
            } finally {
                plugin.destroyForcibly().waitFor();
            }
            scanLog(log);
        }
        return report(samples);
    }

    /** Puts the plugin under load and samples it for the run's length; false when it died on the way. */
    private boolean loadAndSample(KubeletSimulator kubelet, Process plugin, Path node, List<String> resources, List<Integer> flapGroups, Path log,
                                  List<SoakSample> samples) throws IOException, InterruptedException {
        Optional<URI> metrics = metricsAddress(log);
        if (metrics.isEmpty()) out.println("note: no metrics address in the plugin log; the HTTP endpoints are not probed");
        ProcessProbe probe = ProcessProbe.of(plugin.pid());
        int registrationsBefore = kubelet.registrations().size();
        long t0 = System.nanoTime();
        SoakLoad load = SoakLoad.start(kubelet, resources, node.resolve("dev/vfio"), flapGroups, settings, metrics, errors);
        boolean died;
        try {
            died = sample(plugin, probe, load, t0, samples, log);
        } finally {
            load.close();
        }
        out.printf(Locale.ROOT, "load done in %s: %d Allocate, %d GetPreferredAllocation, %d kubelet restart(s), %d flap(s), %d HTTP probe(s)%n",
                seconds(Duration.ofNanos(System.nanoTime() - t0)), load.allocations(), load.preferredAllocations(), load.restarts(), load.flaps(),
                load.probes());
        out.printf(Locale.ROOT, "registrations during the load: %d for %d resource(s) and %d kubelet restart(s)%n",
                kubelet.registrations().size() - registrationsBefore, resources.size(), load.restarts());
        return !died;
    }

    /** Each served resource and its devices, as the plugin's own scan and policy see the node copy. */
    private static Map<String, List<ExposedDevice>> servedDevices(Path node) throws IOException {
        var desired = new ScanPolicySource(new SysfsScanner(node.resolve("sys"), node.resolve("dev"))::scan, Optional.empty(), PciIds.bundled())
                .read().plugins();
        Map<String, List<ExposedDevice>> out = new TreeMap<>();
        for (DesiredResource r : desired.resources().values()) out.put(r.name().value(), r.devices());
        if (out.isEmpty()) throw new IllegalArgumentException("the fixture exposes no resource to soak");
        return out;
    }

    /** Each resource's first device list ({@code id health}), once all are registered and listed; empty when that failed. */
    private Optional<Map<String, List<String>>> awaitServing(KubeletSimulator kubelet, List<String> resources, Process plugin, Path log)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        Map<String, List<String>> lists = new TreeMap<>();
        while (lists.size() < resources.size()) {
            for (String r : resources) kubelet.latest(r).ifPresent(l -> lists.put(r, listing(l)));
            if (!plugin.isAlive()) {
                errors.unexpected("the plugin exited with status " + plugin.exitValue() + " before serving; log: " + tail(log));
                return Optional.empty();
            }
            if (System.nanoTime() > deadline) {
                errors.unexpected("not every resource registered and listed within " + START_WAIT.toSeconds() + " s: " + lists.keySet()
                        + " of " + resources + "; rejections " + kubelet.rejections());
                return Optional.empty();
            }
            Thread.sleep(20);
        }
        return Optional.of(lists);
    }

    /** Samples until the run's length; true when the plugin died on the way. */
    private boolean sample(Process plugin, ProcessProbe probe, SoakLoad load, long t0, List<SoakSample> samples, Path log)
            throws InterruptedException {
        out.println(HEADER);
        boolean warm = false;
        for (long k = 1; ; k++) {
            long due = t0 + settings.sampleEvery().toNanos() * k;
            if (due - t0 > settings.length().toNanos()) {
                histogramAtEnd = histogram(probe);
                return false;
            }
            TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
            if (!plugin.isAlive()) {
                errors.unexpected("the plugin exited with status " + plugin.exitValue() + " during the soak; log: " + tail(log));
                return true;
            }
            ProcessProbe.Footprint f;
            try {
                f = probe.sample();
            } catch (IOException e) {
                errors.unexpected("sampling failed: " + e.getMessage());
                continue;
            }
            SoakSample s = new SoakSample(Duration.ofNanos(System.nanoTime() - t0), f.rssMiB(), f.heapMiB(), f.metaspaceMiB(), f.threads(),
                    f.fds(), load.allocations(), load.restarts(), load.flaps());
            if (!warm && s.elapsed().compareTo(settings.warmup()) >= 0) {
                warm = true;
                histogramAfterWarmup = histogram(probe);
                out.println("---- warm-up over: the rows below are judged ----");
            }
            samples.add(s);
            out.println(row(s));
            out.flush();
        }
    }

    private Optional<HeapHistogram> histogram(ProcessProbe probe) {
        try {
            return Optional.of(probe.histogram());
        } catch (IOException e) {
            errors.unexpected("class histogram failed: " + e.getMessage());
            return Optional.empty();
        }
    }

    static String row(SoakSample s) {
        long secs = s.elapsed().toSeconds();
        return String.format(Locale.ROOT, "%8s %8.1f %9.1f %9.1f %8d %5d %12d %9d %7d", String.format(Locale.ROOT, "%d:%02d", secs / 60, secs % 60),
                s.rssMiB(), s.heapMiB(), s.metaspaceMiB(), s.threads(), s.fds(), s.allocations(), s.restarts(), s.flaps());
    }

    /** After the load the kubelet must hold, for every resource, the same list as at the start. */
    private void checkBackToStart(KubeletSimulator kubelet, Map<String, List<String>> initial) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (Map.Entry<String, List<String>> e : initial.entrySet()) {
            List<String> now = List.of();
            while (System.nanoTime() < deadline) {
                now = kubelet.latest(e.getKey()).map(SoakBench::listing).orElse(List.of());
                if (now.equals(e.getValue())) break;
                Thread.sleep(20);
            }
            if (!now.equals(e.getValue())) {
                errors.unexpected(e.getKey() + ": the kubelet lists " + now + " after the soak, " + e.getValue() + " at the start");
            } else {
                out.println("final ListAndWatch of " + e.getKey() + " equals the first: " + now);
            }
        }
    }

    private void stop(Process plugin, Path plugins) throws InterruptedException, IOException {
        long t0 = System.nanoTime();
        plugin.destroy();
        if (!plugin.waitFor(10, TimeUnit.SECONDS)) {
            errors.unexpected("the plugin did not exit within 10 s of SIGTERM");
            return;
        }
        out.printf(Locale.ROOT, "SIGTERM -> exit %d in %d ms%n", plugin.exitValue(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        if (plugin.exitValue() != 0) errors.unexpected("the plugin exited with status " + plugin.exitValue() + " on SIGTERM");
        try (Stream<Path> left = Files.list(plugins)) {
            // the directory of the record of what the device plugins offered outlives serve on purpose (docs/dra-migration.md)
            List<String> names = left.map(p -> p.getFileName().toString())
                    .filter(n -> !n.equals(KubeletSimulator.SOCKET) && !n.equals(HandoverRecordFile.DIR)).sorted().toList();
            if (!names.isEmpty()) errors.unexpected("the plugin left " + names + " in the device-plugin dir");
        }
    }

    /**
     * ERROR lines and uncaught exceptions in the plugin's log are unexpected errors; WARN lines are
     * what the plugin says about the disturbance (failed registrations, unhealthy devices, refused
     * calls): counted by kind, numbers and PCI addresses folded, to show what happened without
     * keeping the log.
     */
    private void scanLog(Path log) throws IOException {
        Map<String, Long> warnings = new TreeMap<>();
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            lines.forEach(l -> {
                if (ERROR_LINE.matcher(l).find()) errors.unexpected("plugin log: " + l);
                Matcher w = WARN_LINE.matcher(l);
                if (w.find()) warnings.merge(PCI_ADDRESS.matcher(w.group(1)).replaceAll("<device>").replaceAll("\\b\\d+\\b", "N"), 1L, Long::sum);
            });
        }
        out.println("plugin log: " + warnings.values().stream().mapToLong(Long::longValue).sum() + " WARN line(s)"
                + (warnings.isEmpty() ? "" : ", by kind (numbers and PCI addresses folded):"));
        warnings.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(WARN_KINDS)
                .forEach(e -> out.printf(Locale.ROOT, "  %7d  %s%n", e.getValue(), e.getKey()));
        if (warnings.size() > WARN_KINDS) out.println("  ... and " + (warnings.size() - WARN_KINDS) + " more kind(s)");
    }

    private boolean report(List<SoakSample> samples) {
        out.println("expected errors (what the kubelet API allows while the kubelet restarts and devices flap):"
                + (errors.expectedByKind().isEmpty() ? " none" : ""));
        errors.expectedByKind().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> out.printf(Locale.ROOT, "  %7d  %s%n", e.getValue(), e.getKey()));
        out.println("unexpected errors: " + errors.unexpectedCount());
        errors.firstUnexpected().forEach(e -> out.println("  " + e));
        if (errors.unexpectedCount() > SoakErrors.KEEP) out.println("  ... and " + (errors.unexpectedCount() - SoakErrors.KEEP) + " more");
        SoakVerdict verdict = SoakVerdict.of(samples, settings.warmup());
        long judged = samples.stream().filter(s -> s.elapsed().compareTo(settings.warmup()) >= 0).count();
        out.printf(Locale.ROOT, "trends over the %d sample(s) after the %s warm-up (median of the first third -> median of the last third):%n",
                judged, seconds(settings.warmup()));
        verdict.lines().forEach(out::println);
        if (histogramAfterWarmup.isPresent() && histogramAtEnd.isPresent()) {
            List<String> grown = histogramAtEnd.get().growthSince(histogramAfterWarmup.get(), HISTOGRAM_TOP);
            out.println("live heap growth by class from the end of warm-up to the end of the run (top " + HISTOGRAM_TOP + "):"
                    + (grown.isEmpty() ? " none" : ""));
            grown.forEach(g -> out.println("  " + g));
        }
        boolean passed = verdict.passed() && errors.unexpectedCount() == 0;
        List<String> why = new ArrayList<>();
        if (verdict instanceof SoakVerdict.Rising r) why.add(r.rising().stream().map(SoakMetric::label).toList() + " trend upward");
        if (verdict instanceof SoakVerdict.TooFewSamples) why.add("too few samples after warm-up");
        if (errors.unexpectedCount() > 0) why.add(errors.unexpectedCount() + " unexpected error(s)");
        out.println(passed ? "PASS: nothing trends upward after warm-up and nothing unexpected happened" : "FAIL: " + String.join("; ", why));
        out.flush();
        return passed;
    }

    private static Optional<URI> metricsAddress(Path log) throws IOException {
        Matcher m = METRICS_LINE.matcher(Files.readString(log, StandardCharsets.UTF_8));
        return m.find() ? Optional.of(URI.create(m.group(1))) : Optional.empty();
    }

    private static List<String> listing(ListAndWatchResponse r) {
        return r.getDevicesList().stream().map(d -> d.getID() + " " + d.getHealth()).sorted().toList();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String seconds(Duration d) {
        long ms = d.toMillis();
        if (ms % 60_000 == 0) return ms / 60_000 + " min";
        if (ms % 1000 == 0) return ms / 1000 + " s";
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
