package io.vfiodp.bench;

import static io.vfiodp.bench.ListAndWatchLatency.print;
import static io.vfiodp.bench.ListAndWatchLatency.timed;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.serve.ServedHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures how long a host change takes to reach the kubelet, from the file operation to the
 * ListAndWatch message arriving at the kubelet simulator over its unix socket, and prints the
 * figures (p50 / p90 / max over {@code --runs} repetitions):
 * <ol>
 *   <li>{@code /dev/vfio/N} removed → device Unhealthy (directory watch, rescan, reconcile);</li>
 *   <li>{@code /dev/vfio/N} re-created → Healthy again;</li>
 *   <li>a member of the group rebound to a host driver, seen by the periodic rescan only
 *       ({@code --rescan-interval}, default 1 s here) → Unhealthy (not viable);</li>
 *   <li>an A100 bound to vfio-pci whose group node appears → its new resource served, registered and listed;</li>
 *   <li>a full scan and policy pass of the unchanged fixture (what every rescan costs).</li>
 * </ol>
 * Usage: {@code java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.bench.HealthLatencyBench
 * [--fixture DIR] [--runs N] [--rescan-interval-ms N]}.
 */
public final class HealthLatencyBench {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String A100 = "nvidia.com/GA100_A100_PCIE_80GB";

    private HealthLatencyBench() {}

    public static void main(String[] args) throws Exception {
        Path fixture = SysfsFixtures.committedRoot().resolve("t4-numa");
        int runs = 50;
        long rescanMs = 1000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fixture" -> fixture = Path.of(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--rescan-interval-ms" -> rescanMs = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path temp = Files.createTempDirectory("vfio-dp-health-bench");
        List<Long> removed = new ArrayList<>();
        List<Long> recreated = new ArrayList<>();
        List<Long> rebound = new ArrayList<>();
        List<Long> appeared = new ArrayList<>();
        try (ServedHost served = ServedHost.start(fixture, temp, Duration.ofMillis(rescanMs), PluginListener.NONE)) {
            served.kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
            Watch w = served.kubelet.watch(T4);
            w.awaitUpdates(1, WAIT);
            for (int i = 0; i < runs; i++) {
                removed.add(timed(w, () -> served.host.removeGroupNode(24), ServedHost.has("0000:1a:00.0", "Unhealthy"), WAIT));
                recreated.add(timed(w, () -> served.host.createGroupNode(24), ServedHost.has("0000:1a:00.0", "Healthy"), WAIT));
            }
            served.host.moveToGroup("0000:5e:00.0", 24);
            for (int i = 0; i < Math.min(runs, 10); i++) {
                rebound.add(timed(w, () -> served.host.bind("0000:5e:00.0", "nvme"), ServedHost.has("0000:1a:00.0", "Unhealthy"), WAIT));
                rebound.add(timed(w, () -> served.host.bind("0000:5e:00.0", "vfio-pci"), ServedHost.has("0000:1a:00.0", "Healthy"), WAIT));
            }
            for (int i = 0; i < runs; i++) {
                long start = System.nanoTime();
                served.host.bind("0000:3b:00.0", "vfio-pci");
                served.host.createGroupNode(31);
                served.kubelet.awaitRegistrations(List.of(A100), i + 1, WAIT);
                Watch a100 = served.kubelet.watch(A100);
                a100.awaitUpdate(r -> r.getDevicesCount() == 1, WAIT);
                appeared.add(System.nanoTime() - start);
                served.host.removeGroupNode(31);
                served.host.bind("0000:3b:00.0", "nvidia");
                a100.awaitUpdate(r -> r.getDevicesCount() == 1 && r.getDevices(0).getHealth().equals("Unhealthy"), WAIT);
                served.runtime.rescanNow();
                a100.awaitEnd(WAIT);
            }
        }
        List<Long> scan = new ArrayList<>();
        io.vfiodp.host.scan.SysfsScanner scanner = new io.vfiodp.host.scan.SysfsScanner(fixture.resolve("sys"), fixture.resolve("dev"));
        io.vfiodp.host.pciids.PciIds ids = io.vfiodp.host.pciids.PciIds.bundled();
        for (int i = 0; i < 200 + runs * 4; i++) {
            long t = System.nanoTime();
            io.vfiodp.policy.PolicyEngine.evaluate(scanner.scan(), java.util.Optional.empty(), ids);
            if (i >= 200) scan.add(System.nanoTime() - t);
        }
        io.vfiodp.host.fixtures.Trees.deleteRecursively(temp);
        System.out.printf(Locale.ROOT, "health propagation, file change -> ListAndWatch message at the kubelet (%s, %d runs)%n",
                fixture.getFileName(), runs);
        print("/dev/vfio/24 removed -> Unhealthy", removed);
        print("/dev/vfio/24 re-created -> Healthy", recreated);
        print("group member rebound (periodic rescan " + rescanMs + " ms) -> health flips", rebound);
        print("A100 bound to vfio-pci + group node -> new resource registered and listed", appeared);
        print("one scan + policy pass, unchanged host", scan);
    }
}
