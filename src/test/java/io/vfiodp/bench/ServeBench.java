package io.vfiodp.bench;

import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.plugin.ScanPolicySource;
import io.vfiodp.plugin.kubelet.KubeletSimulator;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Measures the shipped jar as the kubelet sees it, and prints the figures:
 * <ol>
 *   <li>start-up: process start until the kubelet simulator has every resource registered;</li>
 *   <li>Allocate latency p50/p99 over {@value #CALLS} calls on one channel, next to the empty
 *       GetDevicePluginOptions call in the same run;</li>
 *   <li>resident memory (VmRSS) after registration and those allocations;</li>
 *   <li>kubelet restart (all sockets deleted, kubelet.sock re-created) until every resource is
 *       registered again, over {@value #RESTARTS} restarts;</li>
 *   <li>SIGTERM to exit.</li>
 * </ol>
 * Usage: {@code java -cp target/vfio-device-plugin.jar:target/test-classes io.vfiodp.bench.ServeBench
 * [--fixture DIR] [--runs N] [--jar JAR] [-- JVM flags for the plugin]}; without flags after {@code --} it uses
 * {@link #SHIPPED_FLAGS}.
 */
public final class ServeBench {

    static final int CALLS = 10_000;
    static final int WARMUP = 5_000;
    static final int RESTARTS = 10;
    /** The flags README recommends; the CDS archive is created by the first run. */
    static final List<String> SHIPPED_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Xms8m", "-Xmx32m",
            "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=24m", "-XX:+AutoCreateSharedArchive",
            "-XX:SharedArchiveFile=target/vfio-device-plugin.jsa");

    public static void main(String[] args) throws Exception {
        Path fixture = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
        Path jar = Path.of("target/vfio-device-plugin.jar");
        int runs = 5;
        List<String> flags = SHIPPED_FLAGS;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fixture" -> fixture = Path.of(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--" -> {
                    flags = Arrays.asList(args).subList(i + 1, args.length);
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (!Files.isRegularFile(jar)) throw new IllegalStateException(jar + " is missing: run ./mvnw -B -q -DskipTests package first");
        List<String> resources = new ScanPolicySource(new SysfsScanner(fixture.resolve("sys"), fixture.resolve("dev"))::scan,
                Optional.empty(), PciIds.bundled()).read().desired().resources().keySet().stream().map(Object::toString).toList();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (String f : flags) {
            // The JVM does not refresh an archive made for an older jar: start from none, run 0 writes it.
            if (f.startsWith("-XX:SharedArchiveFile=") && flags.contains("-XX:+AutoCreateSharedArchive")) {
                Files.deleteIfExists(Path.of(f.substring(f.indexOf('=') + 1)));
            }
        }
        System.out.println("java " + System.getProperty("java.version") + ", " + Runtime.getRuntime().availableProcessors()
                + " CPUs; fixture " + fixture + "; resources " + resources);
        System.out.println("plugin JVM flags: " + String.join(" ", flags));

        List<Long> startups = new ArrayList<>();
        List<Long> cpus = new ArrayList<>();
        for (int run = 0; run <= runs; run++) {
            boolean last = run == runs;
            Path dir = Files.createTempDirectory("vfio-dp-bench-");
            try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
                List<String> cmd = new ArrayList<>();
                cmd.add(java);
                cmd.addAll(flags);
                cmd.addAll(List.of("-jar", jar.toString(), "serve", "--sysfs-root", fixture.resolve("sys").toString(),
                        "--dev-root", fixture.resolve("dev").toString(), "--device-plugin-dir", dir.toString(),
                        "--metrics-address", "127.0.0.1:0"));
                long t0 = System.nanoTime();
                Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                try {
                    kubelet.awaitRegistrations(resources, 1, Duration.ofSeconds(30));
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    long cpu = cpuMillis(p.pid());
                    // Run 0 trains the class-data-sharing archive; it is not counted.
                    if (run > 0) {
                        startups.add(ms);
                        cpus.add(cpu);
                    }
                    System.out.printf("run %d: start -> %d resource(s) registered in %d ms wall, %d ms CPU%s%n", run, resources.size(), ms,
                            cpu, run == 0 ? " (training run, not counted)" : "");
                    if (last) {
                        measureCalls(kubelet, resources.getFirst(), p.pid());
                        measureReRegistration(kubelet, resources);
                    }
                } finally {
                    long s0 = System.nanoTime();
                    p.destroy();
                    boolean exited = p.waitFor(10, TimeUnit.SECONDS);
                    if (last) {
                        System.out.printf("SIGTERM -> exit %s in %d ms%n", exited ? String.valueOf(p.exitValue()) : "(still running)",
                                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - s0));
                    }
                    if (!exited) p.destroyForcibly().waitFor();
                }
            } finally {
                Trees.deleteRecursively(dir);
            }
        }
        startups.sort(null);
        cpus.sort(null);
        System.out.printf("start-up to all registered: median %d ms, min %d ms, max %d ms wall over %d runs; median %d ms CPU (user+sys)%n",
                startups.get(startups.size() / 2), startups.getFirst(), startups.getLast(), startups.size(), cpus.get(cpus.size() / 2));
        System.out.printf("machine load average now: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    private static void measureCalls(KubeletSimulator kubelet, String resource, long pid) throws Exception {
        String device = kubelet.watch(resource).awaitUpdate(u -> u.getDevicesCount() > 0, Duration.ofSeconds(10)).getDevicesList().stream()
                .filter(d -> d.getHealth().equals("Healthy")).findFirst().orElseThrow().getID();
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channelOf(kubelet, resource));
        AllocateRequest allocate = AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(device)).build();
        Empty empty = Empty.getDefaultInstance();
        for (int i = 0; i < WARMUP; i++) {
            stub.allocate(allocate);
            stub.getDevicePluginOptions(empty);
        }
        long[] alloc = new long[CALLS];
        long[] opts = new long[CALLS];
        // Alternate the two calls so both see the same JIT state, GC and machine noise.
        for (int i = 0; i < CALLS; i++) {
            long a = System.nanoTime();
            stub.allocate(allocate);
            long b = System.nanoTime();
            stub.getDevicePluginOptions(empty);
            long c = System.nanoTime();
            alloc[i] = b - a;
            opts[i] = c - b;
        }
        Arrays.sort(alloc);
        Arrays.sort(opts);
        System.out.printf("Allocate               p50 %6.1f us  p99 %6.1f us  (%d calls, one channel)%n", us(alloc, 50), us(alloc, 99), CALLS);
        System.out.printf("GetDevicePluginOptions p50 %6.1f us  p99 %6.1f us  (%d calls, same run)%n", us(opts, 50), us(opts, 99), CALLS);
        System.out.printf("Allocate p50 / empty-call p50 = %.2f%n", us(alloc, 50) / us(opts, 50));
        System.out.println("VmRSS after registration and " + (WARMUP + CALLS) + " allocations: " + vmRss(pid));
    }

    private static void measureReRegistration(KubeletSimulator kubelet, List<String> resources) throws Exception {
        long[] delays = new long[RESTARTS];
        for (int i = 0; i < RESTARTS; i++) {
            int round = i + 2;
            long t0 = System.nanoTime();
            kubelet.restart();
            kubelet.awaitRegistrations(resources, round, Duration.ofSeconds(30));
            delays[i] = System.nanoTime() - t0;
        }
        Arrays.sort(delays);
        System.out.printf("kubelet restart -> all re-registered: p50 %.1f ms, max %.1f ms over %d restarts%n",
                us(delays, 50) / 1000.0, delays[RESTARTS - 1] / 1_000_000.0, RESTARTS);
    }

    private static io.grpc.Channel channelOf(KubeletSimulator kubelet, String resource) {
        return kubelet.stub(resource).getChannel();
    }

    /** CPU time the process used so far: utime + stime from /proc/<pid>/stat (clock ticks of 10 ms). */
    private static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
    }

    private static double us(long[] sorted, int percentile) {
        int i = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[i] / 1000.0;
    }

    /** VmRSS, with its anonymous (heap, stacks, metaspace) and file-backed (libjvm, CDS archive, jar) parts. */
    private static String vmRss(long pid) throws IOException {
        long rss = -1;
        long anon = -1;
        long file = -1;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) rss = kb(line);
            if (line.startsWith("RssAnon:")) anon = kb(line);
            if (line.startsWith("RssFile:")) file = kb(line);
        }
        if (rss < 0) return "unknown (no VmRSS in /proc/" + pid + "/status)";
        return String.format("%.1f MiB (anonymous %.1f MiB, file-backed %.1f MiB)", rss / 1024.0, anon / 1024.0, file / 1024.0);
    }

    private static long kb(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("\\D", ""));
    }
}

