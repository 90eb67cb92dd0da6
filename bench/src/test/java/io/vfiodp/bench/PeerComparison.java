package io.vfiodp.bench;

import io.vfiodp.bench.PluginRun.Expectation;
import io.vfiodp.bench.RunSamples.Figure;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import io.vfiodp.testkit.pods.NodePods;
import io.vfiodp.testkit.pods.PodResourcesServer;
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
import java.util.zip.GZIPInputStream;

/**
 * {@code ServeBench --peer-binary PATH}: our image side by side with the device plugin whose
 * executable the user gives (for the figures on the benchmark page, NVIDIA's
 * kubevirt-gpu-device-plugin) and with the floor ({@code --floor}), run on the same nodes against
 * the same kubelet simulator, alternating run by run. Per run and plugin:
 * <ul>
 *   <li>on the small node (t4-numa): start until every resource is registered; then
 *       {@value #CALLS} Allocates on one channel (the first, p50 and p99 of the first
 *       {@value PluginRun#EARLY}, p50 and p99 of the last {@value #MEASURED}); then VmHWM and VmRSS;</li>
 *   <li>on the large node ({@link LargeHostTree.Shape#PEER_COMPARISON}, 1,410 functions): start
 *       until every resource is registered and has sent its full device list.</li>
 * </ul>
 * What "every resource" and "full list" are is learned per plugin and node from one uncounted
 * warm-up run (registrations and list sizes once nothing changed for a second), as the two name
 * and group devices differently. Then idle cost on the large node, the event benches
 * ({@link EventBenches}) and the tables of medians: each image against the peer, every contender
 * side by side, and each image after the first against the first ({@link ContenderTable}).
 */
public final class PeerComparison {

    static final int CALLS = 4_000;
    static final int MEASURED = 3_000;
    private static final Duration QUIET = Duration.ofMillis(1500);
    private static final Duration IDLE_SETTLE = Duration.ofSeconds(10);

    private final ComparisonSettings settings;
    private final Path pciIds;
    private final Path large;
    private final Path work;
    // the floor's jar and AOT cache: on disk, as our images are
    private final Path floorDir;

    private PeerComparison(ComparisonSettings settings, Path pciIds, Path large, Path work, Path floorDir) {
        this.settings = settings;
        this.pciIds = pciIds;
        this.large = large;
        this.work = work;
        this.floorDir = floorDir;
    }

    public static void main(String[] args) throws Exception {
        // --pod-resources PATH: the kubelet's PodResources (the kit's, listing no pod) on PATH for the whole comparison, so that an
        // image given --serve-arg=--pod-resources-socket=PATH reads a live one when idle, as on a node with the socket mounted
        List<String> rest = new ArrayList<>(List.of(args));
        int podResourcesAt = rest.indexOf("--pod-resources");
        if (podResourcesAt >= 0 && podResourcesAt + 1 < rest.size()) {
            Path socket = Path.of(rest.remove(podResourcesAt + 1));
            rest.remove(podResourcesAt);
            try (PodResourcesServer ignored = PodResourcesServer.start(socket, new NodePods()::list)) {
                System.out.println("--pod-resources: the kubelet's PodResources (no pod holds a device) on " + socket);
                main(rest.toArray(String[]::new));
            }
            return;
        }
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
        Optional<String> peerProblem = settings.peerBinary().flatMap(PeerComparison::problem);
        if (peerProblem.isPresent()) {
            System.err.println(peerProblem.get());
            System.exit(2);
            return;
        }
        NodeAtFixedPaths.MountPoints mountPoints;
        try {
            mountPoints = settings.peerBinary().isPresent() ? NodeAtFixedPaths.createMountPoints() : new NodeAtFixedPaths.MountPoints(List.of());
        } catch (IOException e) {
            System.err.println("--peer-binary: cannot create the mount points the peer's namespace binds over (" + e + "); the peer runs as root");
            System.exit(2);
            return;
        }
        try (mountPoints) {
            compare(settings);
        }
    }

    private static void compare(ComparisonSettings settings) throws Exception {
        System.out.println(Runtime.getRuntime().availableProcessors() + " CPUs; load average " + loadAverage() + "; images " + settings.images()
                + "; " + settings.runs() + " counted runs per plugin and node, alternating");
        Path shm = Path.of("/dev/shm");
        // The large node goes to memory, as real sysfs is: on a disk file system its directory walks cost more.
        Path work = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "vfio-dp-peer-") : Files.createTempDirectory("vfio-dp-peer-");
        Path floorDir = Files.createTempDirectory("vfio-dp-floor-");
        try {
            Path pciIds = work.resolve("pci.ids");
            writeBundledPciIds(pciIds);
            Path large = work.resolve("large");
            LargeHostTree.write(large, LargeHostTree.Shape.PEER_COMPARISON);
            new PeerComparison(settings, pciIds, large, work, floorDir).run();
        } finally {
            Trees.deleteRecursively(work);
            Trees.deleteRecursively(floorDir);
        }
    }

    /** Why {@code binary} cannot be the peer, in one line; empty when it can. */
    static Optional<String> problem(Path binary) {
        return Files.isRegularFile(binary) && Files.isExecutable(binary) ? Optional.empty()
                : Optional.of("--peer-binary " + binary + ": not an executable file");
    }

    private void run() throws Exception {
        List<Contender.Ours> ours = new ArrayList<>();
        for (ComparisonSettings.OurImage image : settings.images()) {
            ours.add(new Contender.Ours(image.dir(), settings.images().size() > 1 ? label(image.dir()) : "", image.serveArgs()));
        }
        Optional<Contender.Peer> peer = settings.peerBinary().map(b -> new Contender.Peer(settings.peerName(), b, pciIds));
        System.out.println(peer.map(p -> "peer: " + p.name() + ", " + p.binary() + ", in a mount namespace of its own")
                .orElse("peer: none (--peer-binary none)"));
        List<Contender> contenders = new ArrayList<>(ours);
        peer.ifPresent(contenders::add);
        if (settings.floor()) contenders.add(FloorImage.prepare(ours.getFirst().image(), settings.fixture(), floorDir));
        System.out.println("nodes: small " + settings.fixture() + "; large " + LargeHostTree.Shape.PEER_COMPARISON.functionCount()
                + " PCI functions " + LargeHostTree.Shape.PEER_COMPARISON + "; the peer reads the pci.ids in this bench's jar ("
                + PciIds.bundled() + ")");
        if (peer.isPresent()) {
            System.out.printf("the peer's namespace's own start (unshare, binds, two execs; in the peer's start-up figures): median %d ms%n",
                    namespaceOverheadMs(peer.get()));
        }
        // every image's files as a node reads them, whatever wrote them last (PageCache)
        for (Contender.Ours o : ours) System.out.println(o.name() + ": " + PageCache.evict(o.image()) + " files dropped from the page cache");
        if (peer.isPresent()) PageCache.evict(peer.get().binary().getParent());
        if (settings.floor()) System.out.println("floor: " + PageCache.evict(floorDir) + " files dropped from the page cache");
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

        Map<Contender, RunSamples> samples = new LinkedHashMap<>();
        for (Contender c : contenders) samples.put(c, new RunSamples());
        for (int run = 1; run <= settings.runs(); run++) {
            // Each run starts with the next plugin, so none always runs first (or right after the same one).
            List<Contender> order = new ArrayList<>(contenders);
            Collections.rotate(order, -(run - 1));
            for (Contender c : order) measure(c, run, small.get(c), big.get(c), allocated, samples.get(c));
        }
        for (Contender c : contenders) {
            if (!settings.idleFor(label(c))) continue;
            try (PluginRun r = PluginRun.start(c, large, log(c, "idle", 0))) {
                r.awaitListed(big.get(c));
                Thread.sleep(IDLE_SETTLE.toMillis());
                IdleCost idle = IdleCost.measure(r.pid(), settings.idle());
                samples.get(c).add(Figure.IDLE_CPU, idle.cpuSecondsPerHour());
                samples.get(c).add(Figure.IDLE_WAKEUPS, idle.wakeupsPerMinute());
                System.out.println("idle " + c.name() + " on the large node " + idle);
            }
        }
        Map<Path, RunSamples> checkouts = new LinkedHashMap<>();
        for (Contender.Ours o : ours) {
            if (settings.events().labels().contains(o.label())) {
                checkouts.put(EventBenches.checkout(o.image()).orElseThrow(() -> new IllegalArgumentException("--events-for " + o.label()
                        + ": " + o.image() + " is not CHECKOUT/image/target/image")), samples.get(o));
            }
        }
        if (!checkouts.isEmpty()) EventBenches.run(checkouts, settings.events().runs(), settings.events().rounds(), work);
        print(ours, peer, contenders, samples);
    }

    /** One counted run of {@code c} on each node, its figures into {@code s}. */
    private void measure(Contender c, int run, Expectation small, Expectation big, String allocated, RunSamples s) throws Exception {
        try (PluginRun r = PluginRun.start(c, settings.fixture(), log(c, "small", run))) {
            s.add(Figure.REGISTERED, r.awaitRegistered(small));
            s.add(Figure.START_CPU, r.cpuMillis());
            PluginRun.Latency latency = r.allocate(allocated, CALLS, CALLS - MEASURED);
            s.add(Figure.FIRST_ALLOCATE, latency.firstUs());
            s.add(Figure.EARLY_P50, latency.earlyP50Us());
            s.add(Figure.EARLY_P99, latency.earlyP99Us());
            s.add(Figure.P50, latency.p50Us());
            s.add(Figure.P99, latency.p99Us());
            PluginRun.Memory m = r.memory();
            s.add(Figure.HWM, m.hwmKiB() / 1024.0);
            s.add(Figure.RSS, m.rssKiB() / 1024.0);
            s.add(Figure.RSS_ANON, m.anonKiB() / 1024.0);
            s.add(Figure.RSS_FILE, m.fileKiB() / 1024.0);
        }
        try (PluginRun r = PluginRun.start(c, large, log(c, "large", run))) {
            s.add(Figure.LISTED, r.awaitListed(big));
        }
        System.out.printf("run %d %-14s small: registered %4.0f ms (CPU %4.0f ms), Allocate first %6.0f us, first %d p50 %5.0f us, p50 %5.0f us,"
                + " p99 %5.0f us, VmHWM %5.1f MiB, VmRSS %5.1f MiB; large: listed %5.0f ms%n", run, c.name(), s.last(Figure.REGISTERED),
                s.last(Figure.START_CPU), s.last(Figure.FIRST_ALLOCATE), PluginRun.EARLY, s.last(Figure.EARLY_P50), s.last(Figure.P50),
                s.last(Figure.P99), s.last(Figure.HWM), s.last(Figure.RSS), s.last(Figure.LISTED));
    }

    private void print(List<Contender.Ours> ours, Optional<Contender.Peer> peer, List<Contender> contenders, Map<Contender, RunSamples> samples)
            throws IOException {
        for (Contender.Ours o : ours) {
            System.out.println();
            if (ours.size() > 1) System.out.println(o.name() + ": " + o.image());
            ComparisonTable.of(samples.get(o), peer.map(samples::get)).lines(settings.peerName()).forEach(System.out::println);
        }
        List<ContenderTable.Column> columns = contenders.stream().map(c -> new ContenderTable.Column(label(c), samples.get(c))).toList();
        if (columns.size() > 1) {
            System.out.println();
            System.out.println("Every contender, medians of " + settings.runs() + " runs:");
            ContenderTable.byContender(columns).forEach(System.out::println);
        }
        for (int i = 1; i < ours.size(); i++) {
            ContenderTable.Column on = columns.getFirst();
            ContenderTable.Column off = columns.get(i);
            System.out.println();
            System.out.println(off.name() + " against " + on.name() + ": buys ≥ " + ContenderTable.WORTH_PERCENT + "% of "
                    + (ContenderTable.bought(on, off).isEmpty() ? "no figure a user sees" : ContenderTable.bought(on, off)));
            ContenderTable.onOff(on, off).forEach(System.out::println);
        }
        System.out.println("load average at the end: " + loadAverage());
    }

    /** What the tables and the options call a contender: an image's label, {@code floor}, or the peer's name. */
    private static String label(Contender c) {
        return switch (c) {
            case Contender.Ours o -> o.label().isEmpty() ? "ours" : o.label();
            case Contender.Floor f -> f.name();
            case Contender.Peer p -> p.name();
        };
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

    private long namespaceOverheadMs(Contender.Peer peer) throws Exception {
        Path dir = Files.createTempDirectory("vfio-dp-peer-namespace-");
        try {
            List<Long> ms = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                long t0 = System.nanoTime();
                List<String> command = new Contender.Peer(peer.name(), Path.of("/bin/true"), pciIds).command(settings.fixture(), dir);
                int exit = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                if (exit != 0) throw new IllegalStateException(String.join(" ", command) + " exited with " + exit + " (unshare --mount needs root)");
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

    /** A short name for an image among several: the checkout it was built in for {@code .../CHECKOUT/image/target/image}, else the directory's name. */
    static String label(Path image) {
        Path p = image.toAbsolutePath().normalize();
        return p.endsWith(Path.of("image", "target", "image")) && p.getNameCount() > 3 ? p.getName(p.getNameCount() - 4).toString() : p.getFileName().toString();
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
