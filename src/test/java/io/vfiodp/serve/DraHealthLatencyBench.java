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
import io.vfiodp.testkit.dra.DraKubeletSimulator;
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
 * one pool) or with {@code --shape benchmark} on the 2,038-function tree (the pool of 288 GPUs, VFs and
 * mdevs), written to /dev/shm. Each change is timed from the tree change until a watch on the slices
 * shows the pool, complete at its newest generation, with the GPU tainted (or untainted again): what
 * the scheduler then reads (p50 / p90 / max over {@code --runs}). A taint re-splits the pool, as a
 * slice with a tainted device holds at most 64 devices, not 128.
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
    /** The GPU card taken: the pool lists 64 mdevs before the GPUs, so this one is its 101st device. */
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
        List<Long> removed = new ArrayList<>();
        List<Long> recreated = new ArrayList<>();
        List<Long> driverOff = new ArrayList<>();
        List<Long> driverBack = new ArrayList<>();
        List<Long> rescanOff = new ArrayList<>();
        List<Long> rescanBack = new ArrayList<>();
        List<Integer> untainted;
        List<Integer> tainted;
        try (MockKubeApi api = MockKubeApi.start(); DraKubeletSimulator kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            ServeConfig config = new ServeConfig(host.sys(), host.dev(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins, false,
                    Optional.of("the bench's mock API server"), Optional.of(NODE), Optional.empty(), UeventMode.on, "",
                    new ServeConfig.Vgpu(false, temp.resolve("state"), temp.resolve("pod-resources.sock")),
                    new ServeConfig.Dra(DraRouting.ALL, DraSettings.DEFAULT_DRIVER, registry,
                            Optional.of(temp.resolve("plugins").resolve(DraSettings.DEFAULT_DRIVER)), temp.resolve("cdi")), "bench");
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
                for (int i = 0; i < runs; i++) {
                    removed.add(pool.timed(() -> host.removeGroupNode(group), PoolWatch.tainted(device, true), WAIT));
                    recreated.add(pool.timed(() -> host.createGroupNode(group), PoolWatch.tainted(device, false), WAIT));
                    driverOff.add(pool.timed(() -> kernel.rebindFromVfio(audio, "snd_hda_intel"), PoolWatch.tainted(device, true), WAIT));
                    driverBack.add(pool.timed(() -> kernel.rebindToVfio(audio), PoolWatch.tainted(device, false), WAIT));
                    rescanOff.add(pool.timed(() -> fullRescan(serve, kernel, h -> h.bind(audio, "snd_hda_intel")), PoolWatch.tainted(device, true), WAIT));
                    rescanBack.add(pool.timed(() -> fullRescan(serve, kernel, h -> h.bind(audio, "vfio-pci")), PoolWatch.tainted(device, false), WAIT));
                }
                tainted = sizesWhileTainted(pool, host, group, device);
                System.out.printf(Locale.ROOT, "health -> ResourceSlices (complete pool at its newest generation), %d functions, %d devices in one pool,"
                        + " %d runs; slices %s untainted, %s with %s tainted%n", snapshot.functions().size(), devices, runs, untainted, tainted, device);
            }
        }
        print("/dev/vfio/" + group + " removed -> " + device + " tainted in the slices", removed);
        print("/dev/vfio/" + group + " re-created -> untainted", recreated);
        print("driver change (uevents): " + audio + " -> snd_hda_intel -> tainted", driverOff);
        print("driver change (uevents) back to vfio-pci -> untainted", driverBack);
        print("silent driver change, full rescan -> tainted", rescanOff);
        print("silent change back, full rescan -> untainted", rescanBack);
        System.out.printf(Locale.ROOT, "machine load average now: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    /** A change no event tells, then the periodic full rescan, asked for now. */
    private static void fullRescan(ServeApp serve, TreeKernel kernel, TreeKernel.Change change) throws Exception {
        kernel.silently(change);
        serve.scans().fullScanNext();
        serve.runtime().rescanNow();
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
