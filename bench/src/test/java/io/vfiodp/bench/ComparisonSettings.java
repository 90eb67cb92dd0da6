package io.vfiodp.bench;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code ServeBench --peer-binary} compares: our image against a device plugin the user
 * supplies as an executable (the bench builds nothing), and against the floor.
 *
 * @param peerBinary the peer's executable; empty ({@code none}) measures ours alone
 * @param peerName   what the tables call the peer
 * @param images     our plugin directories ({@code target/image}: jlink runtime, AOT cache, jvm.options, launcher), each with
 *                   the serve arguments it runs with; more than one (a baseline's, a variant's) are measured in the same
 *                   alternation, each compared with the peer, and each after the first against the first
 * @param runs       counted runs of each plugin on each node, alternating; the figures are their medians
 * @param idle       how long idle cost is sampled on the large node; zero skips it
 * @param fixture    the small node (start-up, Allocate, memory)
 * @param logs       where each run's plugin output goes (discarded unless given)
 * @param floor      whether the floor ({@link io.vfiodp.bench.floor.FloorPlugin}) runs too, on the first image's runtime
 * @param idleFor    the contenders (by label: an image's, {@code floor}, the peer's name) whose idle cost is sampled; empty: all
 * @param events     the images whose checkouts also run the in-process event → ListAndWatch benches
 */
record ComparisonSettings(Optional<Path> peerBinary, String peerName, List<OurImage> images, int runs, Duration idle, Path fixture,
                          Optional<Path> logs, boolean floor, Optional<Set<String>> idleFor, EventRuns events) {

    /**
     * The event benches' runs ({@link EventBenches}).
     *
     * @param labels the images (by label) whose checkouts run them; none skips them
     * @param runs   the {@code --runs} of each bench in each round
     * @param rounds how many times each checkout runs them, the checkouts alternating
     */
    record EventRuns(Set<String> labels, int runs, int rounds) {
        static final EventRuns NONE = new EventRuns(Set.of(), 10, 3);

        EventRuns {
            labels = Set.copyOf(labels);
            if (runs < 1 || rounds < 1) throw new IllegalArgumentException("--event-runs and --event-rounds must be at least 1");
        }
    }

    static final String USAGE = """
            usage: java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.bench.ServeBench --peer-binary PATH
                [--peer-name NAME (the file name of PATH)]
                [--serve-arg ARG (repeatable)] [--image DIR (image/target/image; repeatable)]
                [--runs N (5, at least 3)] [--idle-seconds S (120; 0 skips the idle measurement)]
                [--fixture DIR (agent/src/test/resources/sysfs-fixtures/t4-numa)] [--logs DIR]
                [--floor] [--idle-for LABEL,... (every contender)] [--events-for LABEL,... (none)] [--event-runs N (10)] [--event-rounds N (3)]
                [--pod-resources PATH (the kit's PodResources, listing no pod, on PATH: give the images --serve-arg=--pod-resources-socket=PATH)]
            PATH: the executable of the device plugin to compare with, built or downloaded by you. It runs (as root) in a
            mount namespace of its own where the bench's node and kubelet are at a node's fixed paths: the node's sys/ on
            /sys, its dev/vfio on /dev/vfio, the kubelet's directory on /var/lib/kubelet/device-plugins and the pci.ids of
            our jar on /usr/pci.ids. "none" measures our plugin alone.
            --serve-arg ARG (or --serve-arg=ARG): one more argument to serve for every --image given after it (the peer
            takes none), e.g. --image BASELINE --serve-arg=--uevents=on --image NEW: the bench's nodes are directories,
            not a sysfs mount, so serve's default --uevents auto listens to no uevents there.
            --floor: also run the floor, a minimal grpc-java device plugin of one resource, on the first image's runtime, flags and
            (when the image has one) an AOT cache of its own. Several --image: each after the first is also set against the first.
            LABEL: an image's label (the checkout of CHECKOUT/image/target/image, else the directory's name), floor, or the peer's name.
            --events-for: those images' checkouts (CHECKOUT/agent/target/vfio-device-plugin.jar, CHECKOUT/bench/target/{test-classes,bench-lib}) run
            UeventLatencyBench and HealthLatencyBench in a JVM of their own, --event-runs each, --event-rounds times, alternating.""";

    /**
     * One of our images and what serve gets beyond the bench's node, socket directory and metrics
     * address.
     */
    record OurImage(Path dir, List<String> serveArgs) {
        OurImage {
            Objects.requireNonNull(dir, "dir");
            serveArgs = List.copyOf(serveArgs);
        }
    }

    ComparisonSettings {
        Objects.requireNonNull(peerBinary, "peerBinary");
        Objects.requireNonNull(peerName, "peerName");
        if (runs < 3) throw new IllegalArgumentException("--runs " + runs + ": the figures are medians of at least 3 runs");
        if (idle.isNegative()) throw new IllegalArgumentException("--idle-seconds is negative");
        images = List.copyOf(images);
        if (images.isEmpty()) throw new IllegalArgumentException("no --image to measure");
        Objects.requireNonNull(idleFor, "idleFor");
        Objects.requireNonNull(events, "events");
    }

    /** Whether the contender labelled {@code label} gets its idle cost sampled. */
    boolean idleFor(String label) {
        return idle.isPositive() && idleFor.map(s -> s.contains(label)).orElse(true);
    }

    static ComparisonSettings parse(String... args) {
        String binary = null;
        Optional<String> name = Optional.empty();
        List<OurImage> images = new ArrayList<>();
        List<String> serveArgs = new ArrayList<>();
        boolean serveArgsUsed = true;
        int runs = 5;
        Duration idle = Duration.ofSeconds(120);
        Path fixture = SysfsFixtures.committedRoot().resolve("t4-numa");
        Optional<Path> logs = Optional.empty();
        boolean floor = false;
        Optional<Set<String>> idleFor = Optional.empty();
        Set<String> eventsFor = Set.of();
        int eventRuns = EventRuns.NONE.runs();
        int eventRounds = EventRuns.NONE.rounds();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--floor")) {
                floor = true;
                continue;
            }
            if (a.startsWith("--serve-arg=")) {
                serveArgs.add(a.substring("--serve-arg=".length()));
                serveArgsUsed = false;
                continue;
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value\n" + USAGE);
            String v = args[++i];
            switch (a) {
                case "--peer-binary" -> binary = v;
                case "--peer-name" -> name = Optional.of(v);
                case "--image" -> {
                    images.add(new OurImage(Path.of(v), serveArgs));
                    serveArgsUsed = true;
                }
                case "--serve-arg" -> {
                    serveArgs.add(v);
                    serveArgsUsed = false;
                }
                case "--runs" -> runs = integer(v, a);
                case "--idle-seconds" -> idle = Duration.ofSeconds(integer(v, a));
                case "--fixture" -> fixture = Path.of(v);
                case "--logs" -> logs = Optional.of(Path.of(v));
                case "--idle-for" -> idleFor = Optional.of(labels(v));
                case "--events-for" -> eventsFor = labels(v);
                case "--event-runs" -> eventRuns = integer(v, a);
                case "--event-rounds" -> eventRounds = integer(v, a);
                default -> throw new IllegalArgumentException("unknown argument " + a + "\n" + USAGE);
            }
        }
        if (binary == null) throw new IllegalArgumentException("--peer-binary PATH is missing\n" + USAGE);
        if (images.isEmpty()) {
            images.add(new OurImage(Path.of("image/target/image"), serveArgs));
        } else if (!serveArgsUsed) {
            throw new IllegalArgumentException("--serve-arg " + serveArgs.getLast() + " comes after the last --image: it applies to the images"
                    + " given after it\n" + USAGE);
        }
        Optional<Path> peer = binary.equals("none") ? Optional.empty() : Optional.of(Path.of(binary));
        String peerName = name.orElse(peer.map(p -> String.valueOf(p.getFileName())).orElse("peer"));
        return new ComparisonSettings(peer, peerName, images, runs, idle, fixture, logs, floor, idleFor,
                new EventRuns(eventsFor, eventRuns, eventRounds));
    }

    private static Set<String> labels(String v) {
        return Set.copyOf(Arrays.stream(v.split(",")).map(String::strip).filter(l -> !l.isEmpty()).toList());
    }

    private static int integer(String v, String option) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + v + ": not a whole number");
        }
    }
}
