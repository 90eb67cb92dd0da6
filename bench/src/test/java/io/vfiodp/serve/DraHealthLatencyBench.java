package io.vfiodp.serve;

import static io.vfiodp.bench.ListAndWatchLatency.print;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.policy.DraRouting;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Device health → ResourceSlices latency in DRA mode on a big pool: {@code serve --dra-resources all}
 * in process, with a fake kernel ({@link TreeKernel}), a mock API server and the DRA kubelet
 * simulator, on the 1,410-function node ({@code LargeHostTree.Shape.PEER_COMPARISON}, 288 devices in
 * one pool) or with {@code --shape benchmark} on the 2,038-function tree (462 GPUs, VFs and mdevs),
 * written to /dev/shm. The GPU changed is the pool's 101st device. Each change is timed from the
 * tree change until the kubelet's health stream says it, and until a watch on the slices shows the
 * pool, complete at its newest generation, with the GPU tainted (or untainted again): what the
 * scheduler then reads (p50 / p90 / max over {@code --runs}); and the ResourceSlice writes it took.
 * <ol>
 *   <li>{@code /dev/vfio/N} of the GPU's group removed (the directory watch) → tainted; re-created → untainted;</li>
 *   <li>driver change: the GPU's audio function rebound from vfio-pci to snd_hda_intel (uevents only) → tainted; back → untainted;</li>
 *   <li>the same change made silently, seen by a full rescan (the periodic safety net, asked for at once) → tainted; back → untainted.</li>
 * </ol>
 * Usage: {@code ./mvnw -B -q -DskipImage test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.vfiodp.serve.DraHealthLatencyBench -Dexec.args='[--runs N] [--shape peer|benchmark]'}.
 */
public final class DraHealthLatencyBench {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String NODE = "gpu-node-1";
    /** The GPU card taken: the pool lists 64 mdevs before the GPUs, so this one is its 101st device, past the middle of a slice of 128. */
    private static final int SPLIT_AT = 36;
    /** The mock API server logs every request at INFO; held, as java.util.logging keeps its loggers weakly. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    private DraHealthLatencyBench() {}

    public static void main(String[] args) throws Exception {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        int runs = 20;
        LargeHostTree.Shape shape = LargeHostTree.Shape.PEER_COMPARISON;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--shape" -> shape = switch (args[++i]) {
                    case "peer" -> LargeHostTree.Shape.PEER_COMPARISON;
                    case "benchmark" -> LargeHostTree.Shape.BENCHMARK;
                    default -> throw new IllegalArgumentException("--shape peer or benchmark, not " + args[i]);
                };
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path shm = Path.of("/dev/shm");
        Path temp = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "vfio-dp-dra-health-bench");
        try {
            LargeHostTree.write(temp.resolve("node"), shape);
            HostTree host = HostTree.copy(temp.resolve("node"), temp.resolve("served"));
            run(host, temp, runs);
        } finally {
            Trees.deleteRecursively(temp);
        }
        System.exit(0);
    }

    private static void run(HostTree host, Path temp, int runs) throws Exception {
        HostSnapshot snapshot = new SysfsScanner(host.sys(), host.dev()).scan();
        // a GPU card past the middle of the first slice: tainting it changes how the pool is split
        List<PciFunction> gpus = snapshot.functions().values().stream()
                .filter(f -> f.vendor() == 0x10de && f.address().function() == 0 && f.driver().equals(Optional.of("vfio-pci")))
                .filter(f -> snapshot.functions().containsKey(f.address().withFunction(1))).toList();
        if (gpus.size() < 100) throw new IllegalStateException("fewer than 100 multi-function NVIDIA cards on vfio-pci");
        PciFunction gpu = gpus.get(SPLIT_AT);
        int group = gpu.iommuGroup().orElseThrow();
        String device = "pci-" + gpu.address().toString().replace(':', '-').replace('.', '-');
        String audio = gpu.address().withFunction(1).toString();
        TreeKernel kernel = new TreeKernel(host);
        Path registry = Files.createDirectories(temp.resolve("plugins_registry"));
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));
        List<Step> steps = List.of(
                new Step("/dev/vfio/" + group + " removed -> " + device + " tainted", () -> host.removeGroupNode(group), true),
                new Step("/dev/vfio/" + group + " re-created -> untainted", () -> host.createGroupNode(group), false),
                new Step("driver change (uevents): " + audio + " -> snd_hda_intel -> tainted", () -> kernel.rebindFromVfio(audio, "snd_hda_intel"), true),
                new Step("driver change (uevents) back to vfio-pci -> untainted", () -> kernel.rebindToVfio(audio), false));
        List<Step> rescans = List.of(
                new Step("silent driver change, full rescan -> tainted", null, true),
                new Step("silent change back, full rescan -> untainted", null, false));
        List<Integer> untainted;
        List<Integer> tainted;
        try (MockKubeApi api = MockKubeApi.start(); DraKubeletSimulator kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            ServeConfig config = new ServeConfig(host.sys(), host.dev(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins, false,
                    Optional.of("the bench's mock API server"), Optional.of(NODE), Optional.empty(), UeventMode.on, "", "",
                    new ServeConfig.Vgpu(false, temp.resolve("state"), temp.resolve("pod-resources.sock")),
                    new ServeConfig.Dra(DraRouting.ALL, DraSettings.DEFAULT_DRIVER, registry,
                            Optional.of(temp.resolve("plugins").resolve(DraSettings.DEFAULT_DRIVER)), temp.resolve("cdi"), false), "bench");
            try (PoolWatch pool = new PoolWatch(api.client(), NODE);
                 ServeApp serve = ServeApp.start(config, kernel.opener(), () -> MockKubeApi.clientFor(api.port()))) {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (kubelet.registrationSockets().isEmpty()) {
                    if (System.nanoTime() > deadline) throw new IllegalStateException("serve did not serve its registration socket");
                    Thread.sleep(20);
                }
                kubelet.register(kubelet.registrationSockets().getFirst());
                int devices = pool.await(PoolWatch.tainted(device, false), WAIT).size();
                untainted = pool.sliceSizes();
                Step off = rescans.get(0).with(() -> fullRescan(serve, kernel, h -> h.bind(audio, "snd_hda_intel")));
                Step back = rescans.get(1).with(() -> fullRescan(serve, kernel, h -> h.bind(audio, "vfio-pci")));
                for (int i = 0; i < runs; i++) {
                    for (Step step : List.of(steps.get(0), steps.get(1), steps.get(2), steps.get(3), off, back)) {
                        step.run(pool, kubelet, api, device);
                    }
                }
                steps = List.of(steps.get(0), steps.get(1), steps.get(2), steps.get(3), off, back);
                tainted = sizesWhileTainted(pool, host, group, device);
                System.out.printf(Locale.ROOT, "health -> the kubelet's health stream, and -> ResourceSlices (the pool complete at its newest"
                        + " generation), %d functions, %d devices in one pool, %d runs; slices %s untainted, %s with %s tainted%n",
                        snapshot.functions().size(), devices, runs, untainted, tainted, device);
            }
        }
        for (Step step : steps) {
            print(step.label() + " in the health stream", step.stream());
            print(step.label() + " in the slices", step.slices());
            System.out.printf(Locale.ROOT, "  %-72s %s%n", "  ResourceSlice writes (create, update, delete) per change", step.writes());
        }
        System.out.printf(Locale.ROOT, "machine load average now: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    /** One kind of change and what each run of it took: until the health stream and the slices showed it, and the slice writes. */
    private record Step(String label, PoolWatch.Change change, boolean taint, List<Long> stream, List<Long> slices, List<Integer> writes) {

        Step(String label, PoolWatch.Change change, boolean taint) {
            this(label, change, taint, new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        Step with(PoolWatch.Change c) {
            return new Step(label, c, taint, stream, slices, writes);
        }

        void run(PoolWatch pool, DraKubeletSimulator kubelet, MockKubeApi api, String device) throws Exception {
            sliceWrites(api, Duration.ZERO);
            HealthStatus wanted = taint ? HealthStatus.UNHEALTHY : HealthStatus.HEALTHY;
            long start = System.nanoTime();
            change.run();
            long deadline = start + WAIT.toNanos();
            // the simulator keeps what the stream sent; a short poll, as it wakes no one
            while (!streamed(kubelet, device, wanted)) {
                if (System.nanoTime() > deadline) throw new IllegalStateException(label + ": the health stream never told " + wanted);
                Thread.sleep(1);
            }
            stream.add(System.nanoTime() - start);
            pool.await(PoolWatch.tainted(device, taint), WAIT);
            slices.add(System.nanoTime() - start);
            // the writes of this change, the deletes of left-over slices after it included
            writes.add(sliceWrites(api, Duration.ofMillis(200)));
        }
    }

    private static boolean streamed(DraKubeletSimulator kubelet, String device, HealthStatus wanted) {
        List<NodeWatchResourcesResponse> updates = kubelet.healthUpdates();
        return !updates.isEmpty() && updates.getLast().getDevicesList().stream()
                .anyMatch(d -> d.getDevice().getDeviceName().equals(device) && d.getHealth() == wanted);
    }

    /** The ResourceSlice writes (no dry runs) the API server has seen since the last call, once it has been quiet for {@code quiet}. */
    private static int sliceWrites(MockKubeApi api, Duration quiet) throws InterruptedException {
        int writes = 0;
        for (RecordedRequest r = api.server().takeRequest(Math.max(1, quiet.toMillis()), TimeUnit.MILLISECONDS); r != null;
             r = api.server().takeRequest(Math.max(1, quiet.toMillis()), TimeUnit.MILLISECONDS)) {
            boolean write = !r.getMethod().equals("GET") && r.getPath().contains("/resourceslices") && !r.getPath().contains("dryRun");
            if (write) writes++;
        }
        return writes;
    }

    /** A change no event tells, then the periodic full rescan, asked for now. */
    private static void fullRescan(ServeApp serve, TreeKernel kernel, TreeKernel.Change change) throws Exception {
        kernel.silently(change);
        serve.scans().fullScanNext();
        serve.node().rescanNow();
    }

    private static List<Integer> sizesWhileTainted(PoolWatch pool, HostTree host, int group, String device) throws Exception {
        host.removeGroupNode(group);
        pool.await(PoolWatch.tainted(device, true), WAIT);
        List<Integer> sizes = pool.sliceSizes();
        host.createGroupNode(group);
        pool.await(PoolWatch.tainted(device, false), WAIT);
        return sizes;
    }
}
