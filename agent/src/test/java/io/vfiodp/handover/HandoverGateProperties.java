package io.vfiodp.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DraNodes;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.state.Damage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The switch's decisions ({@link HandoverGate}, as serve runs it) under random histories: the routing
 * of the t4-numa node's devices flipping between the device plugins and DRA, passes, each side
 * taking in what it was handed late and in any interleaving, the kubelet allocating what the device
 * plugins offer, the scheduler and kubelet preparing claims on what DRA offers, pods ending, claims
 * unprepared, PodResources going away and coming back, and serve restarting (the kubelet keeps each
 * stopped resource's devices unallocatable for its grace; pods and claims survive). The state
 * files are real: the switch's record, and the DRA checkpoint (what the driver's book held when
 * serve stopped), each damaged at random before a restart ({@link Damage}: bytes, truncation,
 * garbage, wrong types, another version, removed, a directory), so that either may be lost; a
 * lost checkpoint is made good as the driver does, once PodResources answers. Between any two
 * events no device is offered by both sides, offered by one and held through the other, or held
 * both ways; and once the churn stops every device ends up on its side.
 */
class HandoverGateProperties {

    private static final Map<DraRouting, TargetState> WANTED = Map.of(
            DraRouting.NONE, DraNodes.state("t4-numa", DraRouting.NONE),
            DraRouting.ALL, DraNodes.state("t4-numa", DraRouting.ALL));
    private static final Set<String> HEALTHY = healthy(WANTED.get(DraRouting.NONE).plugins());
    private static final String DRIVER = "vfio-device-plugin.io";
    private static final String POOL = "node-a";

    enum Kind { TO_DRA, TO_PLUGINS, PASS, PLUGINS_TAKE_IN, DRA_TAKES_IN, ALLOCATE, PREPARE, POD_ENDS, UNPREPARE, RESTART, PODS_DOWN, PODS_UP,
        DAMAGE_RECORD, DAMAGE_CHECKPOINT }

    record Move(Kind kind, int pick) {}

    @Provide
    Arbitrary<List<Move>> histories() {
        Arbitrary<Kind> kind = Arbitraries.of(Kind.values());
        return Combinators.combine(kind, Arbitraries.integers().between(0, 63)).as(Move::new).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 600)
    void noDeviceIsEverOfferedOrHeldBothWaysAndEachEndsUpOnItsSide(@ForAll("histories") List<Move> history) throws IOException {
        Path dir = Files.createTempDirectory("switch-properties");
        try {
            Node node = new Node(dir);
            node.restart();
            for (Move m : history) {
                node.play(m);
                node.assertNothingBothWays(m);
            }
            node.settle();
            assertThat(node.routing == DraRouting.NONE ? node.pluginsOffer : node.draOffers).as("after the churn, on its side")
                    .containsAll(HEALTHY);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The node: serve's switch, both sides taking in states late, the kubelet, the pods and the claims. */
    private static final class Node {
        private final Path dir;
        private DraRouting routing = DraRouting.NONE;
        private HandoverGate sw;
        private final Deque<Handing> toPlugins = new ArrayDeque<>();
        private final Deque<Handing> toDra = new ArrayDeque<>();
        // what each side's handlers allocate from now; the device plugins' as the kubelet sees it
        private Set<String> pluginsOffer = Set.of();
        private Set<String> draOffers = Set.of();
        private final Map<String, String> podHolds = new HashMap<>();
        private final Set<String> claimed = new TreeSet<>();
        private boolean podResourcesUp = true;
        private int pods;
        // the DRA driver's book of claims, as its checkpoint gave it at start and its prepares since; lost: it may lack some
        private final Set<String> book = new TreeSet<>();
        private Optional<String> bookLost = Optional.empty();
        private Damage recordDamage = Damage.NONE;
        private Damage checkpointDamage = Damage.NONE;
        private int damagePick;

        private record Handing(Set<String> devices, CompletableFuture<Void> takenIn) {}

        Node(Path dir) {
            this.dir = dir;
        }

        void play(Move m) {
            switch (m.kind()) {
                case TO_DRA -> routing = DraRouting.ALL;
                case TO_PLUGINS -> routing = DraRouting.NONE;
                case PASS -> pass();
                case PLUGINS_TAKE_IN -> pluginsOffer = takeIn(toPlugins, pluginsOffer);
                case DRA_TAKES_IN -> draOffers = takeIn(toDra, draOffers);
                case ALLOCATE -> pick(free(pluginsOffer), m.pick()).ifPresent(id -> podHolds.put(id, "vms/pod-" + pods++));
                // with its book lost, the driver prepares only what PodResources shows no other claim holds
                case PREPARE -> pick(free(draOffers), m.pick()).filter(id -> bookLost.isEmpty() || podResourcesUp).ifPresent(id -> {
                    claimed.add(id);
                    book.add(id);
                });
                case POD_ENDS -> pick(new TreeSet<>(podHolds.keySet()), m.pick()).ifPresent(podHolds::remove);
                case UNPREPARE -> pick(claimed, m.pick()).ifPresent(id -> {
                    claimed.remove(id);
                    book.remove(id);
                });
                case RESTART -> restart();
                case PODS_DOWN -> podResourcesUp = false;
                case PODS_UP -> podResourcesUp = true;
                case DAMAGE_RECORD -> {
                    recordDamage = Damage.values()[m.pick() % Damage.values().length];
                    damagePick = m.pick() * 7919;
                }
                case DAMAGE_CHECKPOINT -> {
                    checkpointDamage = Damage.values()[m.pick() % Damage.values().length];
                    damagePick = m.pick() * 7919;
                }
            }
        }

        /** A healthy device no pod and no claim holds, of {@code offered}. */
        private Set<String> free(Set<String> offered) {
            Set<String> out = new TreeSet<>(offered);
            out.retainAll(HEALTHY);
            out.removeAll(podHolds.keySet());
            out.removeAll(claimed);
            return out;
        }

        private static java.util.Optional<String> pick(Set<String> from, int pick) {
            if (from.isEmpty()) return java.util.Optional.empty();
            return java.util.Optional.of(new ArrayList<>(new TreeSet<>(from)).get(pick % from.size()));
        }

        /**
         * A pass: the switch decides on what scan, policy and routing want, and hands both sides the
         * state, which they take in later; a driver whose book is lost rebuilds it from PodResources.
         */
        void pass() {
            TargetState state = sw.decide(WANTED.get(routing));
            if (bookLost.isPresent() && podResourcesUp) {
                book.clear();
                book.addAll(claimed);
                bookLost = Optional.empty();
            }
            CompletableFuture<Void> dra = new CompletableFuture<>();
            toDra.addLast(new Handing(ids(state.dra().resources()), dra));
            sw.handedToDra(ids(state.dra().resources()), dra);
            CompletableFuture<Void> plugins = new CompletableFuture<>();
            toPlugins.addLast(new Handing(ids(state.plugins()), plugins));
            sw.handedToPlugins(ids(state.plugins()), plugins);
        }

        private static Set<String> takeIn(Deque<Handing> queue, Set<String> now) {
            if (queue.isEmpty()) return now;
            Handing h = queue.removeFirst();
            h.takenIn().complete(null);
            return h.devices();
        }

        /**
         * serve stops and starts again: the kubelet keeps the stopped plugin's devices, none
         * allocatable; the new driver offers nothing until its first state; pods and claims stay;
         * the record and the checkpoint (what the book held) are read back, after the damage due.
         * A started serve makes its first pass at once.
         */
        void restart() {
            toPlugins.forEach(h -> h.takenIn().complete(null));
            toDra.forEach(h -> h.takenIn().complete(null));
            toPlugins.clear();
            toDra.clear();
            pluginsOffer = Set.of();
            draOffers = Set.of();
            HandoverRecordFile record = new HandoverRecordFile(dir);
            recordDamage.to(record.file(), damagePick);
            readCheckpoint();
            recordDamage = Damage.NONE;
            checkpointDamage = Damage.NONE;
            sw = new HandoverGate(record, this::podResources, this::claimedByTheDriver, DRIVER, POOL, DeviceNames::of, Duration.ZERO);
            pass();
        }

        /** The driver's checkpoint as it saved its book last, damaged, and read back at start. */
        private void readCheckpoint() {
            Path pluginDir = dir.resolve("dra");
            ClaimFiles files = new ClaimFiles(DRIVER, pluginDir, dir.resolve("cdi"));
            Checkpoint checkpoint = new Checkpoint(pluginDir, DRIVER);
            try {
                Files.createDirectories(dir.resolve("cdi"));
                List<PreparedClaim> claims = book.stream().map(Node::claimOf).toList();
                checkpoint.save(claims, bookLost);
                // the CDI specs of the claims the kubelet has prepared: what tells a missing checkpoint from a fresh host
                for (String id : claimed) Files.writeString(files.vfioSpec("u-" + name(id)), "{}");
                try (Stream<Path> specs = Files.list(dir.resolve("cdi"))) {
                    for (Path p : specs.toList()) if (claimed.stream().noneMatch(id -> p.equals(files.vfioSpec("u-" + name(id))))) Files.delete(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            checkpointDamage.to(checkpoint.file(), damagePick);
            book.clear();
            switch (checkpoint.load(files)) {
                case Checkpoint.Loaded l -> {
                    l.claims().values().forEach(c -> c.devices().forEach(d -> book.add(d.deviceId())));
                    bookLost = Optional.empty();
                }
                case Checkpoint.Lost l -> {
                    l.known().values().forEach(c -> c.devices().forEach(d -> book.add(d.deviceId())));
                    bookLost = Optional.of(l.reason());
                }
            }
            if (checkpointDamage != Damage.DIRECTORY) return;
            // a directory there fails every save: its operator removes it
            try (Stream<Path> inside = Files.walk(checkpoint.file())) {
                inside.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private HandoverClaims claimedByTheDriver() {
            return bookLost.<HandoverClaims>map(why -> new HandoverClaims.Unknown(book, why)).orElse(new HandoverClaims.Known(book));
        }

        private static String name(String id) {
            return "pci-" + id.replace(':', '-').replace('.', '-');
        }

        private static PreparedClaim claimOf(String id) {
            return new PreparedClaim("u-" + name(id), "vms", "claim-" + name(id), Optional.empty(), List.of(new PreparedDevice("gpu", POOL,
                    name(id), id, List.of("/dev/vfio/vfio"), new TreeMap<>())));
        }

        private PodResourcesReading podResources() {
            if (!podResourcesUp) return new PodResourcesReading.Unreadable("down");
            List<HeldDevice> held = new ArrayList<>();
            podHolds.forEach((id, pod) -> held.add(new HeldDevice.ByPlugin(pod, "compute", "nvidia.com/TU104GL_TESLA_T4", id)));
            for (String id : claimed) held.add(new HeldDevice.ByClaim("vms/pod-of-" + name(id), "compute", "vms/claim-" + name(id), DRIVER, POOL, name(id)));
            return new PodResourcesReading.Listed(held);
        }

        void assertNothingBothWays(Move after) {
            assertThat(intersection(pluginsOffer, draOffers)).as("offered both ways after %s", after).isEmpty();
            assertThat(intersection(podHolds.keySet(), claimed)).as("held both ways after %s", after).isEmpty();
            assertThat(intersection(pluginsOffer, claimed)).as("offered by the device plugins while a claim holds it, after %s", after).isEmpty();
            assertThat(intersection(draOffers, podHolds.keySet())).as("offered through DRA while a pod holds it, after %s", after).isEmpty();
        }

        /** The churn stops: pods end, claims are unprepared, PodResources answers; passes and take-ins until nothing waits. */
        void settle() {
            podHolds.clear();
            // the kubelet unprepares each claim through the driver, which takes it out of its book
            claimed.clear();
            book.clear();
            podResourcesUp = true;
            for (int i = 0; i < 4; i++) {
                pass();
                while (!toDra.isEmpty()) draOffers = takeIn(toDra, draOffers);
                while (!toPlugins.isEmpty()) pluginsOffer = takeIn(toPlugins, pluginsOffer);
                assertNothingBothWays(new Move(Kind.PASS, 0));
            }
        }

        private static Set<String> intersection(Set<String> a, Set<String> b) {
            Set<String> out = new HashSet<>(a);
            out.retainAll(b);
            return out;
        }
    }

    private static Set<String> ids(DesiredState s) {
        Set<String> out = new TreeSet<>();
        s.resources().values().forEach(r -> r.devices().forEach(d -> out.add(d.id())));
        return out;
    }

    private static Set<String> healthy(DesiredState s) {
        Set<String> out = new TreeSet<>();
        s.resources().values().forEach(r -> r.devices().stream().filter(d -> d.health().isHealthy()).map(ExposedDevice::id).forEach(out::add));
        return out;
    }
}
