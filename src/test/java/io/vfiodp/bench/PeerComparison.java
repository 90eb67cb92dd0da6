package io.vfiodp.bench;

import io.vfiodp.bench.PluginRun.Expectation;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;

/**
 * {@code ServeBench --peer GIT_DIR}: our image side by side with NVIDIA's kubevirt-gpu-device-plugin
 * v1.6.0, built from the git mirror by the shared build script and run on the same nodes against
 * the same kubelet simulator, alternating run by run. Per run and plugin:
 * <ul>
 *   <li>on the small node (t4-numa): start until every resource is registered; then
 *       {@value #CALLS} Allocates on one channel (p50 of the last {@value #MEASURED}); then VmHWM;</li>
 *   <li>on the large node ({@link LargeHostTree.Shape#PEER_COMPARISON}, 1,410 functions): start
 *       until every resource is registered and has sent its full device list.</li>
 * </ul>
 * What "every resource" and "full list" are is learned per plugin and node from one uncounted
 * warm-up run (registrations and list sizes once nothing changed for a second), as the two name
 * and group devices differently. Then idle cost on the large node, and the table of medians.
 */
public final class PeerComparison {

    static final int CALLS = 4_000;
    static final int MEASURED = 3_000;
    private static final Duration QUIET = Duration.ofMillis(1500);
    private static final Duration IDLE_SETTLE = Duration.ofSeconds(10);

    /** Every run's figures of one plugin. */
    private record Samples(List<Long> registeredMs, List<Long> startCpuMs, List<Long> listedMs, List<Long> hwmKiB, List<Double> allocateP50Us,
                           List<Double> firstAllocateUs, List<Double> earlyAllocateUs) {
        Samples() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    private final ComparisonSettings settings;
    private final Path pciIds;
    private final Path large;

    private PeerComparison(ComparisonSettings settings, Path pciIds, Path large) {
        this.settings = settings;
        this.pciIds = pciIds;
        this.large = large;
    }

    public static void main(String[] args) throws Exception {
        ComparisonSettings settings;
        try {
            settings = ComparisonSettings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        for (ComparisonSettings.OurImage image : settings.images()) {
            Path launcher = image.dir().resolve("bin/vfio-device-plugin");
            if (!Files.isExecutable(launcher)) {
                throw new IllegalStateException(launcher + " is missing: run ./mvnw -B -q -DskipTests package (the profile \"image\" builds it)");
            }
        }
        System.out.println(Runtime.getRuntime().availableProcessors() + " CPUs; load average " + loadAverage() + "; images " + settings.images()
                + "; " + settings.runs() + " counted runs per plugin and node, alternating");
        PeerBuild build = PeerBuild.build(settings.buildScript(), settings.peerMirror(), settings.peerOut());
        Path shm = Path.of("/dev/shm");
        // The large node goes to memory, as real sysfs is: on a disk file system its directory walks cost more.
        Path work = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "vfio-dp-peer-") : Files.createTempDirectory("vfio-dp-peer-");
        try {
            Path pciIds = work.resolve("pci.ids");
            writeBundledPciIds(pciIds);
            Path large = work.resolve("large");
            LargeHostTree.write(large, LargeHostTree.Shape.PEER_COMPARISON);
            new PeerComparison(settings, pciIds, large).run(build);
        } finally {
            Trees.deleteRecursively(work);
        }
    }

    private void run(PeerBuild build) throws Exception {
        List<Contender.Ours> ours = new ArrayList<>();
        for (ComparisonSettings.OurImage image : settings.images()) {
            ours.add(new Contender.Ours(image.dir(), settings.images().size() > 1 ? label(image.dir()) : "", image.serveArgs()));
        }
        Optional<Contender.Nvidia> peer = switch (build) {
            case PeerBuild.Built b -> {
                System.out.println("peer: " + b.binary() + " (" + settings.buildScript() + " " + settings.peerMirror() + ")");
                yield Optional.of(new Contender.Nvidia(settings.runScript(), b.binary(), pciIds));
            }
            case PeerBuild.Unavailable u -> {
                System.out.println("peer: cannot build NVIDIA's plugin, so our figures alone: " + u.why());
                yield Optional.empty();
            }
        };
        List<Contender> contenders = new ArrayList<>(ours);
        peer.ifPresent(contenders::add);
        System.out.println("nodes: small " + settings.fixture() + "; large " + LargeHostTree.Shape.PEER_COMPARISON.functionCount()
                + " PCI functions " + LargeHostTree.Shape.PEER_COMPARISON + "; NVIDIA's plugin reads the pci.ids in this bench's jar ("
                + PciIds.bundled() + ")");
        if (peer.isPresent()) {
            System.out.printf("the run script's own start (mount namespace, binds, two execs; in NVIDIA's start-up figures): median %d ms%n",
                    scriptOverheadMs(peer.get()));
        }
        // every image's files as a node reads them, whatever wrote them last (PageCache)
        for (Contender.Ours o : ours) System.out.println(o.name() + ": " + PageCache.evict(o.image()) + " files dropped from the page cache");
        if (peer.isPresent()) PageCache.evict(peer.get().binary().getParent());
        Map<Contender, Expectation> small = new LinkedHashMap<>();
        Map<Contender, Expectation> big = new LinkedHashMap<>();
        for (Contender c : contenders) {
            small.put(c, learn(c, settings.fixture()));
            big.put(c, learn(c, large));
            System.out.println(c.name() + " serves, small node: " + small.get(c) + "; large node: " + big.get(c).devices().size()
                    + " resource(s), " + big.get(c).total() + " device(s)");
        }
        String allocated = allocationTarget(small.values());
        System.out.println(String.format("Allocate of one device of %s: %,d calls on one channel, p50 of the last %,d", allocated, CALLS, MEASURED));

        Map<Contender, Samples> samples = new LinkedHashMap<>();
        for (Contender c : contenders) samples.put(c, new Samples());
        for (int run = 1; run <= settings.runs(); run++) {
            // Each run starts with the next plugin, so none always runs first (or right after the same one).
            List<Contender> order = new ArrayList<>(contenders);
            Collections.rotate(order, -(run - 1));
            for (Contender c : order) {
                Samples s = samples.get(c);
                try (PluginRun r = PluginRun.start(c, settings.fixture(), log(c, "small", run))) {
                    s.registeredMs().add(r.awaitRegistered(small.get(c)));
                    s.startCpuMs().add(r.cpuMillis());
                    PluginRun.Latency latency = r.allocate(allocated, CALLS, CALLS - MEASURED);
                    s.allocateP50Us().add(latency.p50Us());
                    s.firstAllocateUs().add(latency.firstUs());
                    s.earlyAllocateUs().add(latency.earlyP50Us());
                    s.hwmKiB().add(r.vmHwmKiB());
                }
                try (PluginRun r = PluginRun.start(c, large, log(c, "large", run))) {
                    s.listedMs().add(r.awaitListed(big.get(c)));
                }
                System.out.printf("run %d %-14s small: registered %4d ms (CPU %4d ms), Allocate first %6.0f us, first %d p50 %5.0f us, p50 %5.0f us,"
                        + " VmHWM %5.1f MiB; large: listed %5d ms%n", run, c.name(), s.registeredMs().getLast(), s.startCpuMs().getLast(),
                        s.firstAllocateUs().getLast(), PluginRun.EARLY, s.earlyAllocateUs().getLast(), s.allocateP50Us().getLast(),
                        s.hwmKiB().getLast() / 1024.0, s.listedMs().getLast());
            }
        }
        Map<Contender, IdleCost> idle = new LinkedHashMap<>();
        if (settings.idle().isPositive()) {
            for (Contender c : contenders) {
                try (PluginRun r = PluginRun.start(c, large, log(c, "idle", 0))) {
                    r.awaitListed(big.get(c));
                    Thread.sleep(IDLE_SETTLE.toMillis());
                    idle.put(c, IdleCost.measure(r.pid(), settings.idle()));
                }
                System.out.println("idle " + c.name() + " on the large node " + idle.get(c));
            }
        }
        for (Contender.Ours o : ours) {
            System.out.println();
            if (ours.size() > 1) System.out.println(o.name() + ": " + o.image());
            table(samples.get(o), peer.map(samples::get), idle.get(o), peer.map(idle::get)).lines(peer.map(Contender::name).orElse("NVIDIA"))
                    .forEach(System.out::println);
        }
        System.out.println("load average at the end: " + loadAverage());
    }

    private static ComparisonTable table(Samples o, Optional<Samples> p, IdleCost ourIdle, Optional<IdleCost> peerIdle) {
        ComparisonTable t = new ComparisonTable()
                .add(ratioRow("start → all resources registered, t4-numa", "ms", o, p, Samples::registeredMs, 1, OptionalDouble.of(2)))
                .add(ratioRow("start → all registered with full lists, 1,410-function node", "ms", o, p, Samples::listedMs, 1, OptionalDouble.of(2)))
                .add(ratioRow(String.format("VmHWM after registration + %,d calls", CALLS), "MiB", o, p, Samples::hwmKiB, 1024, OptionalDouble.of(2.5)))
                .add(ratioRow("Allocate p50 on one channel", "µs", o, p, Samples::allocateP50Us, 1, OptionalDouble.of(1)))
                .add(ratioRow("(CPU used by registration, t4-numa)", "ms", o, p, Samples::startCpuMs, 1, OptionalDouble.empty()))
                .add(ratioRow("(the first Allocate after registration)", "µs", o, p, Samples::firstAllocateUs, 1, OptionalDouble.empty()))
                .add(ratioRow("(Allocate p50 of the first " + PluginRun.EARLY + ")", "µs", o, p, Samples::earlyAllocateUs, 1, OptionalDouble.empty()));
        if (ourIdle != null) {
            t.add(new ComparisonTable.Row("idle CPU, 1,410-function node", "CPU-s/h", ourIdle.cpuSecondsPerHour(),
                    peerIdle.map(i -> OptionalDouble.of(i.cpuSecondsPerHour())).orElse(OptionalDouble.empty()), OptionalDouble.of(5), false));
            t.add(new ComparisonTable.Row("idle wake-ups (context switches), 1,410-function node", "/min", ourIdle.wakeupsPerMinute(),
                    peerIdle.map(i -> OptionalDouble.of(i.wakeupsPerMinute())).orElse(OptionalDouble.empty()), OptionalDouble.empty(), false));
        }
        return t;
    }

    private static ComparisonTable.Row ratioRow(String figure, String unit, Samples ours, Optional<Samples> peer,
                                                Function<Samples, List<? extends Number>> values, double divisor, OptionalDouble goal) {
        return new ComparisonTable.Row(figure, unit, ComparisonTable.median(values.apply(ours)) / divisor,
                peer.map(s -> OptionalDouble.of(ComparisonTable.median(values.apply(s)) / divisor)).orElse(OptionalDouble.empty()), goal, true);
    }

    /** One uncounted run that also learns what the plugin serves on the node (and warms the page cache). */
    private Expectation learn(Contender c, Path node) throws Exception {
        try (PluginRun r = PluginRun.start(c, node, log(c, "warm-up-" + node.getFileName(), 0))) {
            return r.settle(QUIET);
        }
    }

    /** The resource Allocate is timed on: the first (by name) that both plugins serve on the small node, else our first. */
    static String allocationTarget(Collection<Expectation> small) {
        List<Expectation> all = List.copyOf(small);
        return all.getFirst().devices().keySet().stream().filter(r -> all.stream().allMatch(e -> e.devices().containsKey(r)))
                .findFirst().orElseThrow(() -> new IllegalStateException("the plugins serve no resource of the same name on the small node: " + all));
    }

    private long scriptOverheadMs(Contender.Nvidia peer) throws Exception {
        Path dir = Files.createTempDirectory("vfio-dp-peer-script-");
        try {
            List<Long> ms = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                long t0 = System.nanoTime();
                int exit = new ProcessBuilder(new Contender.Nvidia(peer.runScript(), Path.of("/bin/true"), pciIds).command(settings.fixture(), dir))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                if (exit != 0) throw new IllegalStateException(peer.runScript() + " with /bin/true exited with " + exit);
                ms.add((System.nanoTime() - t0) / 1_000_000);
            }
            return (long) ComparisonTable.median(ms);
        } finally {
            Trees.deleteRecursively(dir);
        }
    }

    private Optional<Path> log(Contender c, String what, int run) throws IOException {
        if (settings.logs().isEmpty()) return Optional.empty();
        Files.createDirectories(settings.logs().get());
        return Optional.of(settings.logs().get().resolve(c.name().replaceAll("[^A-Za-z0-9.-]+", "_") + "-" + what + "-" + run + ".log"));
    }

    /** A short name for an image among several: the checkout it was built in for {@code .../CHECKOUT/target/image}, else the directory's name. */
    static String label(Path image) {
        Path p = image.toAbsolutePath().normalize();
        return p.endsWith(Path.of("target", "image")) && p.getNameCount() > 2 ? p.getName(p.getNameCount() - 3).toString() : p.getFileName().toString();
    }

    private static void writeBundledPciIds(Path file) throws IOException {
        try (InputStream in = PciIds.class.getResourceAsStream("/pci.ids.gz")) {
            if (in == null) throw new IOException("no /pci.ids.gz on the class path (the plugin jar)");
            try (InputStream plain = new GZIPInputStream(in)) {
                Files.copy(plain, file);
            }
        }
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
