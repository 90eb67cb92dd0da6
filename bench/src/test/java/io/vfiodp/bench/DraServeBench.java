package io.vfiodp.bench;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The DRA driver as the kubelet sees it, {@code serve} as its own process (the image's launcher,
 * else a plain {@code java -jar}), and prints:
 * <ol>
 *   <li>{@code NodePrepareResources} p50/p99 of the scheduler's claim of a virt-launcher pod's
 *       extended resources (KEP-5004), of 1 and of 8 devices, on the hgx-8gpu fixture: each call
 *       prepares a claim new to the driver (read from the API, files written, checkpoint synced);
 *       {@code NodeUnprepareResources} beside it;</li>
 *   <li>VmHWM, VmRSS and RssAnon of serve in DRA mode with the API on the t4-numa fixture, after its
 *       slices are published and {@value #MEMORY_CYCLES} claims prepared and unprepared; and of serve
 *       with device plugins and no API on the same node after as many Allocates, in the same run.</li>
 * </ol>
 * Usage: {@code java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.bench.DraServeBench
 * [--calls N] [--image DIR] [--jar JAR] [--java JAVA] [--memory-map] [--kubeconfig] [-- JVM flags]}; {@code --memory-map} adds where
 * serve's resident memory is in DRA mode ({@link MemoryMap}); {@code --kubeconfig} names the API in a kubeconfig file rather than
 * in {@code KUBERNETES_MASTER} ({@link DraServeRun#start}). Figures for publication need a quiet machine.
 */
public final class DraServeBench {

    static final int MEMORY_CYCLES = 200;

    private DraServeBench() {}

    public static void main(String[] args) throws Exception {
        Path jar = Path.of("agent/target/vfio-device-plugin.jar");
        Path image = Path.of("image/target/image");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        int calls = 500;
        boolean memoryMap = false;
        boolean kubeconfig = false;
        Optional<List<String>> flags = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--image" -> image = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--memory-map" -> memoryMap = true;
                case "--kubeconfig" -> kubeconfig = true;
                case "--" -> {
                    flags = Optional.of(Arrays.asList(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path launcher = image.resolve("bin/vfio-device-plugin");
        List<String> command = new ArrayList<>();
        if (flags.isEmpty() && Files.isExecutable(launcher)) {
            command.add(launcher.toString());
            // mapped as a node first reads them from disk, not as the build wrote them (PageCache)
            System.out.println("the image's files dropped from the page cache: " + PageCache.evict(image));
        } else {
            if (!Files.isRegularFile(jar)) throw new IllegalStateException(jar + " is missing: run ./mvnw -B -q -DskipTests package first");
            command.add(java);
            flags.ifPresent(command::addAll);
            command.addAll(List.of("-jar", jar.toString()));
        }
        System.out.println(Runtime.getRuntime().availableProcessors() + " CPUs; serve: " + String.join(" ", command));
        Path fixtures = SysfsFixtures.committedRoot();
        prepareLatency(command, fixtures.resolve("hgx-8gpu"), calls, kubeconfig);
        memory(command, fixtures.resolve("t4-numa"), memoryMap, kubeconfig);
        System.out.printf("machine load average now: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    private static List<String> resources(Path fixture) throws Exception {
        return new ScanPolicySource(new SysfsScanner(fixture.resolve("sys"), fixture.resolve("dev"))::scan, Optional.empty(), PciIds.bundled())
                .read().plugins().resources().keySet().stream().map(Object::toString).toList();
    }

    private static void prepareLatency(List<String> command, Path fixture, int calls, boolean kubeconfig) throws Exception {
        String resource = "nvidia.com/GH100_H100_SXM5_80GB";
        List<String> gpus = List.of("pci-0000-18-00-0", "pci-0000-19-00-0", "pci-0000-3a-00-0", "pci-0000-3b-00-0", "pci-0000-9a-00-0",
                "pci-0000-9b-00-0", "pci-0000-ba-00-0", "pci-0000-bb-00-0");
        try (DraServeRun run = DraServeRun.start(command, fixture, resources(fixture), kubeconfig)) {
            System.out.println();
            System.out.println("== NodePrepareResources of a virt-launcher pod's extended-resource claim, hgx-8gpu, " + calls + " calls each after "
                    + calls / 5 + " warm-up (a claim new to the driver each time; unprepared after)");
            for (int size : List.of(1, 8)) {
                long[] prepare = new long[calls];
                long[] unprepare = new long[calls];
                for (int i = -calls / 5; i < calls; i++) {
                    DraServeRun.Scheduled s = run.schedule(resource, gpus.subList(0, size));
                    long t0 = System.nanoTime();
                    String error = run.kubelet.prepare(DraKubeletSimulator.claim("vms", s.claim().name(), s.uid())).getClaimsOrThrow(s.uid()).getError();
                    long t1 = System.nanoTime();
                    if (!error.isEmpty()) throw new IllegalStateException("prepare failed: " + error);
                    run.kubelet.unprepare(DraKubeletSimulator.claim("vms", s.claim().name(), s.uid()));
                    long t2 = System.nanoTime();
                    if (i >= 0) {
                        prepare[i] = t1 - t0;
                        unprepare[i] = t2 - t1;
                    }
                }
                Arrays.sort(prepare);
                Arrays.sort(unprepare);
                System.out.printf("%d device(s): NodePrepareResources p50 %7.1f us  p99 %7.1f us;  NodeUnprepareResources p50 %7.1f us  p99 %7.1f us%n",
                        size, AllocateLatency.us(prepare, 50), AllocateLatency.us(prepare, 99), AllocateLatency.us(unprepare, 50),
                        AllocateLatency.us(unprepare, 99));
            }
        }
    }

    private static void memory(List<String> command, Path fixture, boolean memoryMap, boolean kubeconfig) throws Exception {
        List<String> resources = resources(fixture);
        System.out.println();
        System.out.println("== serve's memory on t4-numa");
        try (DraServeRun run = DraServeRun.start(command, fixture, resources, kubeconfig)) {
            for (int i = 0; i < MEMORY_CYCLES; i++) {
                DraServeRun.Scheduled s = run.schedule(resources.getFirst(), List.of("pci-0000-1a-00-0"));
                run.kubelet.prepare(DraKubeletSimulator.claim("vms", s.claim().name(), s.uid()));
                run.kubelet.unprepare(DraKubeletSimulator.claim("vms", s.claim().name(), s.uid()));
            }
            print("DRA, with the API, after " + MEMORY_CYCLES + " claims prepared and unprepared", run.status());
            if (memoryMap) MemoryMap.print(run.pid(), command.stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking=")));
        }
        Path dir = Files.createTempDirectory("vfio-dp-dra-bench-plugins-");
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
            List<String> cmd = new ArrayList<>(command);
            cmd.addAll(List.of("serve", "--sysfs-root", fixture.resolve("sys").toString(), "--dev-root", fixture.resolve("dev").toString(),
                    "--device-plugin-dir", dir.toString(), "--metrics-address", "127.0.0.1:0", "--kubevirt", "off"));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
            Process p = pb.start();
            try {
                kubelet.awaitRegistrations(resources, 1, Duration.ofSeconds(60));
                for (int i = 0; i < MEMORY_CYCLES; i++) kubelet.allocate(resources.getFirst(), List.of(List.of("0000:1a:00.0")));
                print("device plugins, no API, after " + MEMORY_CYCLES + " Allocates", Files.readString(Path.of("/proc/" + p.pid() + "/status")));
            } finally {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            }
        } finally {
            Trees.deleteRecursively(dir);
        }
    }

    private static void print(String what, String status) {
        System.out.printf("%-62s VmHWM %6.1f MiB  VmRSS %6.1f MiB  RssAnon %6.1f MiB%n", what + ":", ProcStat.statusKiB(status, "VmHWM") / 1024.0,
                ProcStat.statusKiB(status, "VmRSS") / 1024.0, ProcStat.statusKiB(status, "RssAnon") / 1024.0);
    }
}
