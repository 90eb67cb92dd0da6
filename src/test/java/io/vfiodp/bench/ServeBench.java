package io.vfiodp.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.KubeVirtCrs;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.demo.kubelet.KubeletSimulator;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Measures the plugin as the kubelet sees it, as its own process against the kubelet simulator,
 * and prints the figures for each way of running it:
 * <ol>
 *   <li>start-up: process start until the kubelet simulator has every resource registered;</li>
 *   <li>Allocate latency p50/p99 over {@value #CALLS} calls on one channel, next to the empty
 *       GetDevicePluginOptions call in the same run;</li>
 *   <li>resident memory (VmRSS) after registration and {@value #RSS_AFTER} allocations;</li>
 *   <li>kubelet restart (all sockets deleted, kubelet.sock re-created) until every resource is
 *       registered again, over {@value #RESTARTS} restarts;</li>
 *   <li>SIGTERM to exit.</li>
 * </ol>
 * By default it runs two configurations one after the other and prints a table of both: the
 * shipped one (the image directory's launcher: jlink runtime, class-data-sharing archive,
 * src/main/image/jvm.options) and a plain {@code java -jar} of the same jar with the JDK running
 * this bench and no flags.
 *
 * <p>Usage: {@code java -cp target/vfio-device-plugin.jar:target/test-classes io.vfiodp.bench.ServeBench
 * [--fixture DIR] [--runs N] [--image DIR] [--jar JAR] [--java JAVA] [--memory-map] [--kube-api] [--log FILE] [-- JVM flags]}; with flags
 * after {@code --} it measures only {@code JAVA FLAGS -jar JAR} (JAVA: this bench's JDK unless given).
 * {@code --memory-map} adds where the resident memory is (per mapping, heap, live objects, and the
 * JVM's native memory tracking when the flags enable it). {@code --kube-api} runs the plugin as in a
 * cluster: against a mock API server with a KubeVirt CR and its node, with {@code NODE_NAME} set.
 * {@code --log FILE} keeps the plugin's output (stdout and stderr) of the last run in FILE.
 *
 * <p>{@code --peer GIT_DIR} compares the image with NVIDIA's plugin instead: {@link PeerComparison}.
 */
public final class ServeBench {

    static final int CALLS = 10_000;
    static final int WARMUP = 5_000;
    static final int RSS_AFTER = 10_000;
    static final int RESTARTS = 10;
    static final String NODE = "gpu-node-1";

    /** One way of starting the plugin: the command up to (not including) {@code serve}. */
    record Configuration(String name, List<String> command) {}

    /** What the summary lines show of one configuration; start-up lists are sorted. */
    record Figures(Configuration configuration, List<Long> startupsMs, List<Long> cpuMs, double allocateP50Us, double allocateP99Us,
                   String rss) {
        static long median(List<Long> sorted) {
            return sorted.get(sorted.size() / 2);
        }
    }

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--peer")) {
            PeerComparison.main(args);
            return;
        }
        Path fixture = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
        Path jar = Path.of("target/vfio-device-plugin.jar");
        Path image = Path.of("target/image");
        int runs = 10;
        Optional<List<String>> flags = Optional.empty();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        boolean memoryMap = false;
        boolean kubeApi = false;
        Optional<Path> log = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fixture" -> fixture = Path.of(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--image" -> image = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--memory-map" -> memoryMap = true;
                case "--kube-api" -> kubeApi = true;
                case "--log" -> log = Optional.of(Path.of(args[++i]));
                case "--" -> {
                    flags = Optional.of(Arrays.asList(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (!Files.isRegularFile(jar)) throw new IllegalStateException(jar + " is missing: run ./mvnw -B -q -DskipTests package first");
        List<Configuration> configurations = new ArrayList<>();
        if (flags.isPresent()) {
            List<String> command = new ArrayList<>(List.of(java));
            command.addAll(flags.get());
            command.addAll(List.of("-jar", jar.toString()));
            configurations.add(new Configuration("java " + String.join(" ", flags.get()) + " -jar", command));
        } else {
            Path launcher = image.resolve("bin/vfio-device-plugin");
            if (!Files.isExecutable(launcher)) {
                throw new IllegalStateException(launcher + " is missing: run ./mvnw -B -q -DskipTests package (the profile \"image\" builds it)");
            }
            configurations.add(new Configuration("image: jlink runtime + CDS archive + jvm.options", List.of(launcher.toString())));
            configurations.add(new Configuration("plain java -jar (JDK " + System.getProperty("java.version") + ", no flags)",
                    List.of(java, "-jar", jar.toString())));
        }
        List<String> resources = new ScanPolicySource(new SysfsScanner(fixture.resolve("sys"), fixture.resolve("dev"))::scan,
                Optional.empty(), PciIds.bundled()).read().desired().resources().keySet().stream().map(Object::toString).toList();
        System.out.println(Runtime.getRuntime().availableProcessors() + " CPUs; fixture " + fixture + "; resources " + resources
                + "; " + runs + " counted starts per configuration");

        List<Figures> all = new ArrayList<>();
        Path kubeconfig = Files.createTempFile("vfio-dp-bench-kubeconfig-", ".yaml");
        try (MockKubeApi api = kubeApi ? kubeApiWithCr(resources) : null) {
            Map<String, String> env = new HashMap<>();
            if (api != null) {
                Files.writeString(kubeconfig, """
                        apiVersion: v1
                        kind: Config
                        clusters: [{name: mock, cluster: {server: "http://127.0.0.1:%d"}}]
                        users: [{name: plugin, user: {token: bench}}]
                        contexts: [{name: mock, context: {cluster: mock, user: plugin}}]
                        current-context: mock
                        """.formatted(api.port()));
                env.put("KUBECONFIG", kubeconfig.toString());
                env.put("NODE_NAME", NODE);
                System.out.println("--kube-api: the plugin follows a KubeVirt CR (permittedHostDevices naming the same resources) and node "
                        + NODE + " on a mock API server");
            }
            for (Configuration c : configurations) {
                System.out.println();
                System.out.println("== " + c.name() + ": " + String.join(" ", c.command()));
                all.add(measure(c, fixture, resources, runs, memoryMap, env, log));
            }
        } finally {
            Files.deleteIfExists(kubeconfig);
        }
        System.out.println();
        for (Figures f : all) {
            System.out.printf("%s%n  start -> all registered: median %d ms (min %d, max %d) wall, median %d ms CPU; VmRSS after %,d Allocates: %s;"
                    + " Allocate p50 %.0f us, p99 %.0f us%n", f.configuration().name(), Figures.median(f.startupsMs()), f.startupsMs().getFirst(),
                    f.startupsMs().getLast(), Figures.median(f.cpuMs()), RSS_AFTER, f.rss(), f.allocateP50Us(), f.allocateP99Us());
        }
        System.out.printf("machine load average now: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    /**
     * A mock API server holding a node and a KubeVirt CR whose permittedHostDevices serve the
     * fixture's resources under their default names, so that the same resources register.
     */
    private static MockKubeApi kubeApiWithCr(List<String> resources) {
        MockKubeApi api = MockKubeApi.start().withKubeVirtCrd();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("nvidia.com/gpu.workload.config",
                "vm-passthrough").endMetadata().build()).create();
        if (!resources.equals(List.of("nvidia.com/TU104GL_TESLA_T4"))) {
            throw new IllegalArgumentException("--kube-api knows the t4-numa fixture's resource only, not " + resources);
        }
        KubeVirtCrs.create(api.client(), """
                pciHostDevices:
                  - {pciVendorSelector: "10DE:1EB8", resourceName: nvidia.com/TU104GL_TESLA_T4, externalResourceProvider: true}
                """);
        return api;
    }

    private static Figures measure(Configuration c, Path fixture, List<String> resources, int runs, boolean memoryMap,
                                   Map<String, String> env, Optional<Path> log) throws Exception {
        List<Long> startups = new ArrayList<>();
        List<Long> cpus = new ArrayList<>();
        Calls calls = null;
        // Run 0 warms the page cache (jar, runtime, archive) and is not counted.
        for (int run = 0; run <= runs; run++) {
            boolean last = run == runs;
            Path dir = Files.createTempDirectory("vfio-dp-bench-");
            try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
                List<String> cmd = new ArrayList<>(c.command());
                cmd.addAll(List.of("serve", "--sysfs-root", fixture.resolve("sys").toString(),
                        "--dev-root", fixture.resolve("dev").toString(), "--device-plugin-dir", dir.toString(),
                        "--metrics-address", "127.0.0.1:0"));
                // --log keeps the output of the last run (e.g. with -Xlog flags), for finding where start-up time goes
                ProcessBuilder.Redirect output = log.filter(f -> last).map(f -> ProcessBuilder.Redirect.to(f.toFile())).orElse(ProcessBuilder.Redirect.DISCARD);
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(output).redirectErrorStream(true);
                pb.environment().remove("JDK_JAVA_OPTIONS");
                pb.environment().keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
                pb.environment().putAll(env);
                long t0 = System.nanoTime();
                Process p = pb.start();
                try {
                    kubelet.awaitRegistrations(resources, 1, Duration.ofSeconds(30));
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    long cpu = cpuMillis(p.pid());
                    if (run > 0) {
                        startups.add(ms);
                        cpus.add(cpu);
                    }
                    System.out.printf("run %d: start -> %d resource(s) registered in %d ms wall, %d ms CPU%s%n", run, resources.size(), ms,
                            cpu, run == 0 ? " (warm-up, not counted)" : "");
                    if (last) {
                        calls = measureCalls(kubelet, resources.getFirst(), p.pid());
                        if (memoryMap) printMemoryMap(p.pid(), c.command().stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking=")));
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
        return new Figures(c, startups, cpus, calls.allocateP50Us(), calls.allocateP99Us(), calls.rss());
    }

    private record Calls(double allocateP50Us, double allocateP99Us, String rss) {}

    private static Calls measureCalls(KubeletSimulator kubelet, String resource, long pid) throws Exception {
        String device = kubelet.watch(resource).awaitUpdate(u -> u.getDevicesCount() > 0, Duration.ofSeconds(10)).getDevicesList().stream()
                .filter(d -> d.getHealth().equals("Healthy")).findFirst().orElseThrow().getID();
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(kubelet.stub(resource).getChannel());
        AllocateRequest allocate = AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(device)).build();
        Empty empty = Empty.getDefaultInstance();
        for (int i = 0; i < WARMUP; i++) {
            stub.allocate(allocate);
            stub.getDevicePluginOptions(empty);
        }
        long[] alloc = new long[CALLS];
        long[] opts = new long[CALLS];
        String rss = null;
        // Alternate the two calls so both see the same JIT state, GC and machine noise.
        for (int i = 0; i < CALLS; i++) {
            if (WARMUP + i == RSS_AFTER) rss = vmRss(pid);
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
        System.out.printf("Allocate               p50 %6.1f us  p99 %6.1f us  (%d calls after %d warm-up, one channel)%n", us(alloc, 50),
                us(alloc, 99), CALLS, WARMUP);
        System.out.printf("GetDevicePluginOptions p50 %6.1f us  p99 %6.1f us  (%d calls, same run)%n", us(opts, 50), us(opts, 99), CALLS);
        System.out.printf("Allocate p50 / empty-call p50 = %.2f%n", us(alloc, 50) / us(opts, 50));
        System.out.println("VmRSS after registration and " + RSS_AFTER + " allocations: " + rss);
        System.out.println("VmRSS after registration and " + (WARMUP + CALLS) + " allocations: " + vmRss(pid));
        return new Calls(us(alloc, 50), us(alloc, 99), rss);
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

    /**
     * Where the resident memory is: RSS per mapping (libjvm, each CDS archive, anonymous memory),
     * and with -XX:NativeMemoryTracking the JVM's own account of it (jcmd of the JDK running this bench).
     */
    private static void printMemoryMap(long pid, boolean nmt) throws Exception {
        java.util.Map<String, long[]> byName = new java.util.TreeMap<>();
        String name = null;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                String[] f = line.trim().split("\\s+", 6);
                name = f.length == 6 ? f[5] : "[anonymous]";
            } else if (line.startsWith("Rss:")) {
                byName.computeIfAbsent(name, n -> new long[2])[0] += kb(line);
            } else if (line.startsWith("Anonymous:")) {
                byName.computeIfAbsent(name, n -> new long[2])[1] += kb(line);
            }
        }
        System.out.println("resident memory by mapping (RSS, of which anonymous):");
        byName.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(8)
                .forEach(e -> System.out.printf("  %8.1f MiB %8.1f MiB  %s%n", e.getValue()[0] / 1024.0, e.getValue()[1] / 1024.0, e.getKey()));
        if (nmt) {
            System.out.println("native memory tracking (committed):");
            jcmd(pid, "VM.native_memory", "summary").lines().filter(l -> l.startsWith("Total:") || l.matches("^-\\s+\\S.*"))
                    .forEach(l -> System.out.println("  " + l.replaceFirst("^-\\s+", "").replaceFirst("reserved=\\d+KB, ", "")));
        }
        System.out.println("code cache (compiled code, interpreter, stubs):");
        jcmd(pid, "Compiler.codecache").lines().filter(l -> l.startsWith("CodeHeap") || l.startsWith(" total_blobs") || l.contains("size="))
                .forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("heap:");
        jcmd(pid, "GC.heap_info").lines().skip(1).forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("live objects after a full collection (the largest classes):");
        List<String> histogram = jcmd(pid, "GC.class_histogram").lines().skip(1).toList();
        histogram.stream().limit(14).forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("  " + histogram.getLast().strip());
    }

    /** Runs a diagnostic command in the process, with the jcmd of the JDK running this bench (a jlink runtime has none). */
    private static String jcmd(long pid, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        cmd.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        jcmd.waitFor();
        return out;
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

    /** VmRSS, with its anonymous (heap, stacks, metaspace) and file-backed (libjvm, CDS archives, jar) parts. */
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
