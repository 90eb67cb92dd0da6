package io.vfiodp.serve;

import static io.vfiodp.bench.ListAndWatchLatency.print;
import static io.vfiodp.bench.ListAndWatchLatency.timed;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Kernel uevent → ListAndWatch latency on a fixture: {@code serve} as shipped (its rescan period
 * at the default, 5 min under uevents) with a fake kernel ({@link TreeKernel}) on the 1,410-function
 * node of the comparison with NVIDIA's plugin ({@code LargeHostTree.Shape.PEER_COMPARISON}, written
 * to /dev/shm as sysfs is in memory), or on a copy of {@code --fixture DIR}. Each change is made to
 * the tree and its uevents sent at once, as the kernel does; timed until the kubelet simulator holds
 * the ListAndWatch message that shows it (p50 / p90 / max over {@code --runs}):
 * <ol>
 *   <li>driver change: a GPU card's audio function rebound from vfio-pci to snd_hda_intel (the
 *       group's node stays: only uevents tell) → the GPU Unhealthy; and back → Healthy;</li>
 *   <li>hot-remove of the whole card (four functions) → the GPU Unhealthy; hot-add, vfio-pci
 *       claiming it → Healthy.</li>
 * </ol>
 * Usage: {@code java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.serve.UeventLatencyBench [--runs N] [--fixture DIR]}.
 */
public final class UeventLatencyBench {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private UeventLatencyBench() {}

    public static void main(String[] args) throws Exception {
        int runs = 50;
        Optional<Path> fixture = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--fixture" -> fixture = Optional.of(Path.of(args[++i]));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path shm = Path.of("/dev/shm");
        Path temp = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "vfio-dp-uevent-bench");
        try {
            HostTree host;
            if (fixture.isPresent()) {
                host = HostTree.copy(fixture.get(), temp.resolve("node"));
            } else {
                LargeHostTree.write(temp.resolve("node"), LargeHostTree.Shape.PEER_COMPARISON);
                host = HostTree.copy(temp.resolve("node"), temp.resolve("served"));
            }
            run(host, temp, runs, fixture.map(f -> f.getFileName().toString()).orElse("1,410-function node"));
        } finally {
            Trees.deleteRecursively(temp);
        }
    }

    private static void run(HostTree host, Path temp, int runs, String node) throws Exception {
        HostSnapshot snapshot = new SysfsScanner(host.sys(), host.dev()).scan();
        PciFunction gpu = snapshot.functions().values().stream()
                .filter(f -> f.vendor() == 0x10de && f.address().function() == 0 && f.driver().equals(Optional.of("vfio-pci")))
                .filter(f -> snapshot.functions().containsKey(f.address().withFunction(1)))
                .findFirst().orElseThrow(() -> new IllegalStateException("no multi-function NVIDIA card on vfio-pci in " + node));
        List<String> card = snapshot.functions().keySet().stream().filter(a -> a.sameSlot(gpu.address())).map(Object::toString).toList();
        String id = gpu.address().toString();
        String audio = gpu.address().withFunction(1).toString();
        TreeKernel kernel = new TreeKernel(host);
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        List<Long> driverOff = new ArrayList<>();
        List<Long> driverBack = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        List<Long> added = new ArrayList<>();
        ServeConfig base = ServeAppTest.config(host, plugins);
        ServeConfig config = new ServeConfig(base.sysfsRoot(), base.devRoot(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins, false,
                Optional.empty(), Optional.empty(), Optional.empty(), UeventMode.on, "", "", base.vgpu(), ServeConfig.Dra.OFF, base.version());
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins); ServeApp serve = ServeApp.start(config, kernel.opener())) {
            Watch w = awaitWatchListing(kubelet, id);
            for (int i = 0; i < runs; i++) {
                driverOff.add(timed(w, () -> kernel.rebindFromVfio(audio, "snd_hda_intel"), ServedHost.has(id, "Unhealthy"), WAIT));
                driverBack.add(timed(w, () -> kernel.rebindToVfio(audio), ServedHost.has(id, "Healthy"), WAIT));
                List<TreeKernel.Removed> gone = new ArrayList<>();
                removed.add(timed(w, () -> gone.addAll(kernel.hotRemove(card)), ServedHost.has(id, "Unhealthy"), WAIT));
                added.add(timed(w, () -> kernel.hotAdd(gone), ServedHost.has(id, "Healthy"), WAIT));
            }
            System.out.printf(Locale.ROOT, "uevent -> ListAndWatch message at the kubelet, %s (%d functions), %d runs; passes: %s%n", node,
                    snapshot.functions().size(), runs, serve.scans().counts());
        }
        print("driver change: " + audio + " vfio-pci -> snd_hda_intel -> GPU Unhealthy", driverOff);
        print("driver change back to vfio-pci -> GPU Healthy", driverBack);
        print("hot-remove of the card (" + card.size() + " functions) -> GPU Unhealthy", removed);
        print("hot-add of the card, claimed by vfio-pci -> GPU Healthy", added);
    }

    /** The ListAndWatch stream of the resource that lists {@code id}, once it has. */
    private static Watch awaitWatchListing(KubeletSimulator kubelet, String id) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (KubeletSimulator.Registration r : kubelet.registrations()) {
                Optional<ListAndWatchResponse> latest = kubelet.latest(r.resourceName());
                if (latest.isPresent() && ServedHost.has(id, "Healthy").test(latest.get())) return kubelet.watch(r.resourceName());
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no resource lists " + id + " within " + WAIT + ": " + kubelet.registrations());
    }
}
