package io.vfiodp.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.KubeVirtCrs;
import io.vfiodp.node.ScanPolicySource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 * image/src/main/image/jvm.options) and a plain {@code java -jar} of the same jar with the JDK running
 * this bench and no flags.
 *
 * <p>Usage: {@code java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.bench.ServeBench
 * [--fixture DIR] [--runs N] [--image DIR] [--jar JAR] [--java JAVA] [--memory-map] [--kube-api] [--log FILE] [-- JVM flags]}; with flags
 * after {@code --} it measures only {@code JAVA FLAGS -jar JAR} (JAVA: this bench's JDK unless given).
 * {@code --memory-map} adds where the resident memory is (per mapping, heap, live objects, and the
 * JVM's native memory tracking when the flags enable it). {@code --kube-api} runs the plugin as in a
 * cluster: against a mock API server with a KubeVirt CR and its node, with {@code NODE_NAME} set.
 * {@code --log FILE} keeps the plugin's output (stdout and stderr) of the last run in FILE.
 *
 * <p>{@code --peer-binary PATH} compares the image with the device plugin at PATH instead: {@link PeerComparison}. The runs are
 * {@link StartupRuns}, the calls {@link AllocateLatency}, the memory map {@link MemoryMap}.
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
        if (Arrays.asList(args).contains("--peer-binary")) {
            PeerComparison.main(args);
            return;
        }
        Path fixture = SysfsFixtures.committedRoot().resolve("t4-numa");
        Path jar = Path.of("agent/target/vfio-device-plugin.jar");
        Path image = Path.of("image/target/image");
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
            // mapped as a node reads it, not as the build left it in the page cache (PageCache)
            System.out.println(image + ": " + PageCache.evict(image) + " files dropped from the page cache");
            configurations.add(new Configuration("plain java -jar (JDK " + System.getProperty("java.version") + ", no flags)",
                    List.of(java, "-jar", jar.toString())));
        }
        List<String> resources = new ScanPolicySource(new SysfsScanner(fixture.resolve("sys"), fixture.resolve("dev"))::scan,
                Optional.empty(), PciIds.bundled()).read().plugins().resources().keySet().stream().map(Object::toString).toList();
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
                all.add(StartupRuns.measure(c, fixture, resources, runs, memoryMap, env, log));
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

}
