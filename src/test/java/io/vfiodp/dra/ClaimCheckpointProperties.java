package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DriverAction.AnswerPrepare;
import io.vfiodp.dra.DriverAction.AnswerUnprepare;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.state.Damage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The driver's claims across restarts with a real checkpoint that is damaged at random while the
 * driver is stopped ({@link Damage}: bytes, truncation, garbage, wrong types, another version,
 * removed, a directory). The kubelet keeps the claims it was told are prepared; the API allocates
 * each claim devices at random, another claim's included, as a confused scheduler or a hand
 * would; PodResources answers or not. In no history is one device prepared for two claims the
 * kubelet holds, whatever the checkpoint said.
 */
class ClaimCheckpointProperties {

    private static final String[] DEVICES = {"pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0"};
    private static final TargetState NODE = DraNodes.allDra("t4-numa");

    enum Kind { PREPARE, UNPREPARE, OUTCOMES, RESTART, DAMAGE, PODS_DOWN, PODS_UP }

    record Move(Kind kind, int pick) {}

    @Provide
    Arbitrary<List<Move>> histories() {
        return Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 4095)).as(Move::new).list()
                .ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 300)
    void noDeviceIsPreparedForTwoClaimsAcrossDamagedCheckpoints(@ForAll("histories") List<Move> history, @ForAll Random random)
            throws IOException {
        Path dir = Files.createTempDirectory("claim-checkpoint");
        try {
            World world = new World(dir, random);
            for (Move m : history) world.play(m);
            world.drain();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The driver's loop around the step, the kubelet that remembers what it was told, the API and PodResources. */
    private static final class World {
        private final DriverStep step = new DriverStep(DriverScript.SETTINGS);
        private final Random random;
        private final Checkpoint checkpoint;
        private final ClaimFiles files;
        private DriverState state;
        private final Queue<List<DriverEvent>> held = new ArrayDeque<>();
        // what the last successful save recorded, written to the real file when the driver stops
        private SortedMap<String, PreparedClaim> recorded = new TreeMap<>();
        private Optional<String> recordedIncomplete = Optional.empty();
        // claim UID → the device names the kubelet was told it holds
        private final Map<String, Set<String>> kubelet = new TreeMap<>();
        // claim UID → what the API allocated it, from its first prepare until it is unprepared
        private final Map<String, String[]> api = new HashMap<>();
        private final Map<Long, List<ClaimRequest>> asked = new HashMap<>();
        private Damage damage = Damage.NONE;
        private int damagePick;
        private boolean podResourcesUp = true;
        private long calls;

        World(Path dir, Random random) throws IOException {
            this.random = random;
            Files.createDirectories(dir.resolve("cdi"));
            this.checkpoint = new Checkpoint(dir, DraNodes.DRIVER);
            this.files = new ClaimFiles(DraNodes.DRIVER, dir, dir.resolve("cdi"));
            start();
        }

        /** The driver starts on what its checkpoint says now. */
        private void start() {
            state = switch (checkpoint.load(files)) {
                case Checkpoint.Loaded l -> DriverState.initial(l.claims(), 0);
                case Checkpoint.Lost l -> DriverState.initial(l.known(), Optional.of(LostClaims.at(l.reason())), 0);
            };
            recorded = new TreeMap<>(state.claims());
            recordedIncomplete = state.lost().map(LostClaims::reason);
            feed(List.of(new DriverEvent.Checked(Set.of())));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.SERVICE, 1)));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.REGISTRATION, 2)));
            feed(List.of(new DriverEvent.TargetChanged(NODE)));
            feed(List.of(new DriverEvent.SlicesSynced(new SlicePublisher.Outcome.Synced(1, 1, 3, true, Optional.empty()))));
        }

        void play(Move m) {
            switch (m.kind()) {
                case PREPARE -> {
                    if (state.lost().isPresent()) feed(List.of(kubeletRead()));
                    List<ClaimRequest> requests = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        int bits = m.pick() >> (3 * c) & 7;
                        if (bits == 0) continue;
                        String uid = "u-" + c;
                        if (!api.containsKey(uid)) api.put(uid, devicesOf(bits));
                        requests.add(state.claims().containsKey(uid) ? DriverScript.known("c" + c, uid) : DriverScript.fetched("c" + c, uid, api.get(uid)));
                    }
                    if (requests.isEmpty()) return;
                    asked.put(++calls, requests);
                    feed(List.of(new DriverEvent.PrepareRequested(calls, requests)));
                }
                case UNPREPARE -> {
                    List<ClaimRef> refs = new ArrayList<>();
                    for (int c = 0; c < 4; c++) if ((m.pick() >> c & 1) != 0) refs.add(DriverScript.ref("c" + c, "u-" + c));
                    if (refs.isEmpty()) return;
                    feed(List.of(new DriverEvent.UnprepareRequested(++calls, refs)));
                }
                case OUTCOMES -> drain();
                case RESTART -> restart();
                case DAMAGE -> {
                    damage = Damage.values()[m.pick() % Damage.values().length];
                    damagePick = m.pick() * 7919;
                }
                case PODS_DOWN -> podResourcesUp = false;
                case PODS_UP -> podResourcesUp = true;
            }
        }

        /** What the handler reads while the checkpoint is lost: PodResources, and the API's claims it names that the book lacks. */
        private DriverEvent kubeletRead() {
            if (!podResourcesUp) return new DriverEvent.KubeletClaimsRead(new PodResourcesReading.Unreadable("down"), List.of());
            List<HeldDevice> devices = new ArrayList<>();
            List<ClaimRequest> fetched = new ArrayList<>();
            kubelet.forEach((uid, names) -> {
                String name = "c" + uid.substring(2);
                names.forEach(d -> devices.add(new HeldDevice.ByClaim("vms/pod-" + name, "compute", "vms/" + name, DraNodes.DRIVER, DraNodes.NODE, d)));
                if (!state.claims().containsKey(uid)) fetched.add(DriverScript.fetched(name, uid, api.get(uid)));
            });
            return new DriverEvent.KubeletClaimsRead(new PodResourcesReading.Listed(devices), fetched);
        }

        private static String[] devicesOf(int bits) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < DEVICES.length; i++) if ((bits & 1 << i) != 0) out.add(DEVICES[i]);
            return out.toArray(String[]::new);
        }

        /**
         * The driver stops (calls in flight fail), its checkpoint is what it recorded last, the
         * claims' CDI specs stay, the damage due is done, and it starts again.
         */
        private void restart() {
            held.clear();
            asked.clear();
            try {
                if (!Files.isDirectory(checkpoint.file())) checkpoint.save(recorded.values(), recordedIncomplete);
                for (String uid : kubelet.keySet()) Files.writeString(files.vfioSpec(uid), "{}");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            damage.to(checkpoint.file(), damagePick);
            damage = Damage.NONE;
            start();
            if (Files.isDirectory(checkpoint.file())) checkpoint.file().toFile().delete();
        }

        void drain() {
            while (!held.isEmpty()) feed(held.remove());
        }

        /** Runs a step and the outcomes it leads to, some held back for later; then no device may be prepared for two claims. */
        void feed(List<DriverEvent> first) {
            Queue<List<DriverEvent>> events = new ArrayDeque<>(List.of(first));
            while (!events.isEmpty()) {
                step(events.remove());
                while (!held.isEmpty() && random.nextInt(3) > 0) events.add(held.remove());
            }
            Map<String, String> holders = new HashMap<>();
            kubelet.forEach((uid, names) -> names.forEach(d -> {
                String other = holders.put(d, uid);
                assertThat(other).as("device %s prepared for claims %s and %s the kubelet holds", d, other, uid).isNull();
            }));
        }

        private void step(List<DriverEvent> events) {
            DriverStep.Result r = step.next(state, events, new Now(0, Instant.EPOCH));
            state = r.state();
            for (DriverAction a : r.actions()) {
                switch (a) {
                    case WriteFiles w -> held.add(List.of(new DriverEvent.FilesWritten(w.call(), w.claim().uid(),
                            random.nextInt(8) == 0 ? Optional.of("No space left on device") : Optional.empty())));
                    case RemoveFiles rm -> held.add(List.of(new DriverEvent.FilesRemoved(rm.call(), rm.claim(), rm.undo(), Optional.empty())));
                    case SaveCheckpoint s -> {
                        boolean ok = random.nextInt(6) > 0;
                        if (ok) {
                            recorded = new TreeMap<>();
                            s.claims().forEach(c -> recorded.put(c.uid(), c));
                            recordedIncomplete = s.incomplete();
                        }
                        held.add(List.of(new DriverEvent.CheckpointSaved(s.call(), ok ? Optional.empty() : Optional.of("Read-only file system"))));
                    }
                    case AnswerPrepare p -> p.answers().forEach((uid, answer) -> {
                        if (answer instanceof PrepareAnswer.Prepared done) {
                            Set<String> names = new TreeSet<>();
                            done.claim().devices().forEach(d -> names.add(d.device()));
                            kubelet.put(uid, names);
                            // an unprepare queued before this answer may have let the API forget it
                            api.putIfAbsent(uid, names.toArray(String[]::new));
                        }
                    });
                    case AnswerUnprepare u -> u.errors().forEach((uid, error) -> {
                        if (error.isEmpty()) {
                            kubelet.remove(uid);
                            api.remove(uid);
                        }
                    });
                    default -> { }
                }
            }
        }
    }
}
