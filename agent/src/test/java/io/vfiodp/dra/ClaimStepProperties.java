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
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
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
import java.util.HashSet;
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
 * The claims' part of the step under random histories: prepares and unprepares of claims that
 * compete for devices (the API allocates each claim devices at random, another claim's included,
 * as a confused scheduler or a hand would), devices flapping, file writes, removals and checkpoint
 * writes that fail, and outcomes that come back late, after further calls. Whatever happens, no
 * device is prepared for two claims, the kubelet is told a claim is prepared (or unprepared) only
 * once the checkpoint says so, a claim told unprepared holds nothing until it is prepared again,
 * every call gets one answer, and between calls the book is the checkpoint. And across restarts
 * on a real checkpoint damaged at random while the driver is stopped ({@link Damage}: bytes,
 * truncation, garbage, wrong types, another version, removed, a directory), with PodResources
 * answering or not and its readings reaching the driver late: no device is ever prepared for two
 * claims the kubelet's pods use, whatever the checkpoint said.
 */
class ClaimStepProperties {

    private static final String[] DEVICES = {"pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0"};
    private static final TargetState NODE = DraNodes.allDra("t4-numa");
    private static final TargetState FLAPPED = DraNodes.withHealth(NODE, "0000:1b:00.0", Health.unhealthy("flapped"));

    enum Kind { PREPARE, UNPREPARE, FLAP, OUTCOMES, RESTART, DAMAGE, PODS_DOWN, PODS_UP, READ }

    record Move(Kind kind, int pick, boolean ok) {}

    private static Arbitrary<List<Move>> of(Arbitrary<Kind> kinds, int most) {
        Arbitrary<Move> move = Combinators.combine(kinds, Arbitraries.integers().between(0, 4095), Arbitraries.of(true, true, false)).as(Move::new);
        return move.list().ofMinSize(1).ofMaxSize(most);
    }

    @Provide
    Arbitrary<List<Move>> histories() {
        return of(Arbitraries.of(Kind.PREPARE, Kind.UNPREPARE, Kind.FLAP, Kind.OUTCOMES), 40);
    }

    @Provide
    Arbitrary<List<Move>> restarts() {
        return of(Arbitraries.of(Kind.values()), 30);
    }

    @Property(tries = 500)
    void noDeviceIsPreparedTwiceAndEveryAnswerFollowsTheCheckpoint(@ForAll("histories") List<Move> history, @ForAll Random random)
            throws IOException {
        inWorld(random, world -> {
            for (Move m : history) world.play(m);
            world.drain();

            assertThat(world.answered).as("calls answered").isEqualTo(world.asked);
            assertThat(world.state.claims()).as("the book once every call is answered").isEqualTo(world.recorded);
            world.feed(List.of(new DriverEvent.Close()));
            assertThat(world.step(List.of(new DriverEvent.Swept(Set.of())))).as("actions after close").isEmpty();
        });
    }

    @Property(tries = 300)
    void noDeviceIsPreparedForTwoClaimsAcrossDamagedCheckpoints(@ForAll("restarts") List<Move> history, @ForAll Random random)
            throws IOException {
        inWorld(random, world -> {
            for (Move m : history) world.play(m);
            world.drain();

            assertThat(world.answered).as("calls answered").isEqualTo(world.asked);
        });
    }

    private static void inWorld(Random random, java.util.function.Consumer<World> history) throws IOException {
        Path dir = Files.createTempDirectory("claim-step");
        try {
            history.accept(new World(dir, random));
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * The loop around the step, with files and a checkpoint that fail when the dice say so, and
     * outcomes held back at times; the kubelet, which keeps what it was told; the API's claims; and
     * PodResources, which the handler reads while the checkpoint is lost.
     */
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
        // claim UID → the last call that asked to prepare it, the last that told the kubelet it is prepared, and the last that
        // asked to unprepare it: once asked, no pod uses it, even where the answer never came (the driver stopped after
        // recording the unprepare) and the kubelet still counts it prepared
        private final Map<String, Long> prepareAsked = new HashMap<>();
        private final Map<String, Long> preparedIn = new HashMap<>();
        private final Map<String, Long> unprepareAsked = new HashMap<>();
        // the claims the kubelet was told are unprepared and has not asked to prepare since
        private final Set<String> dropped = new HashSet<>();
        // claim UID → what the API allocated it, from its first prepare until it is unprepared
        private final Map<String, String[]> api = new HashMap<>();
        private final Set<Long> asked = new HashSet<>();
        private final Set<Long> answered = new HashSet<>();
        private Damage damage = Damage.NONE;
        private int damagePick;
        private boolean podResourcesUp = true;
        private long calls;

        World(Path dir, Random random) {
            this.random = random;
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
            feed(List.of(new DriverEvent.Swept(Set.of())));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.SERVICE, 1)));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.REGISTRATION, 2)));
            feed(List.of(new DriverEvent.TargetChanged(NODE)));
            feed(List.of(new DriverEvent.SlicesSynced(new SlicePublisher.Outcome.Synced(1, 1, 3, true, Optional.empty()))));
        }

        void play(Move m) {
            switch (m.kind()) {
                case PREPARE -> {
                    // as the handler does: what the kubelet still has is read first while the checkpoint is lost
                    if (state.lost().isPresent()) feed(List.of(kubeletRead()));
                    List<ClaimRequest> requests = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        int bits = m.pick() >> (3 * c) & 7;
                        if (bits == 0) continue;
                        String uid = "u-" + c;
                        if (!api.containsKey(uid)) api.put(uid, devicesOf(bits));
                        // the API is asked only about claims not prepared when the call came
                        requests.add(state.claims().containsKey(uid) ? DriverScript.known("c" + c, uid)
                                : DriverScript.fetched("c" + c, uid, api.get(uid)));
                    }
                    if (requests.isEmpty()) return;
                    asked.add(++calls);
                    for (ClaimRequest r : requests) {
                        dropped.remove(r.uid());
                        prepareAsked.put(r.uid(), calls);
                    }
                    feed(List.of(new DriverEvent.PrepareRequested(calls, requests)));
                }
                case UNPREPARE -> {
                    List<ClaimRef> refs = new ArrayList<>();
                    for (int c = 0; c < 4; c++) if ((m.pick() >> c & 1) != 0) refs.add(DriverScript.ref("c" + c, "u-" + c));
                    if (refs.isEmpty()) return;
                    asked.add(++calls);
                    for (ClaimRef r : refs) unprepareAsked.put(r.uid(), calls);
                    feed(List.of(new DriverEvent.UnprepareRequested(calls, refs)));
                }
                case FLAP -> feed(List.of(new DriverEvent.TargetChanged(m.ok() ? NODE : FLAPPED)));
                case OUTCOMES -> drain();
                case RESTART -> restart();
                case DAMAGE -> {
                    damage = Damage.values()[m.pick() % Damage.values().length];
                    damagePick = m.pick() * 7919;
                }
                // a pass reads what the kubelet has; the reading reaches the driver later, after calls it knew nothing of were answered
                case READ -> {
                    if (state.lost().isPresent()) held.add(List.of(kubeletRead()));
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
         * The driver stops (calls in flight are answered as it closes), its checkpoint is what it
         * recorded last, the claims' CDI specs stay, the damage due is done, and it starts again.
         */
        private void restart() {
            feed(List.of(new DriverEvent.Close()));
            held.clear();
            try {
                if (!Files.isDirectory(checkpoint.file())) checkpoint.save(recorded.values(), recordedIncomplete);
                Files.createDirectories(files.vfioSpec("u").getParent());
                for (String uid : kubelet.keySet()) Files.writeString(files.vfioSpec(uid), "{}");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            damage.to(checkpoint.file(), damagePick);
            damage = Damage.NONE;
            start();
            // a directory there fails every save: its operator removes it
            if (Files.isDirectory(checkpoint.file())) checkpoint.file().toFile().delete();
        }

        void drain() {
            while (!held.isEmpty()) feed(held.remove());
        }

        /** Runs a step and the outcomes it leads to, some held back for later, then checks what must hold between two events. */
        void feed(List<DriverEvent> first) {
            Queue<List<DriverEvent>> events = new ArrayDeque<>(List.of(first));
            while (!events.isEmpty()) {
                step(events.remove());
                while (!held.isEmpty() && random.nextInt(3) > 0) events.add(held.remove());
            }
            Map<String, String> holders = new HashMap<>();
            for (PreparedClaim c : state.claims().values()) {
                for (PreparedDevice d : c.devices()) {
                    String other = holders.put(d.device(), c.uid());
                    assertThat(other).as("device %s prepared for %s and %s", d.device(), other, c.uid()).isNull();
                }
            }
            Map<String, String> kubeletHolders = new HashMap<>();
            kubelet.forEach((uid, names) -> names.forEach(d -> {
                if (preparedIn.get(uid) < unprepareAsked.getOrDefault(uid, 0L)) return;
                String other = kubeletHolders.put(d, uid);
                assertThat(other).as("device %s prepared for claims %s and %s pods of the kubelet use", d, other, uid).isNull();
            }));
            for (String uid : dropped) assertThat(state.claims()).as("claim %s told unprepared but in the book", uid).doesNotContainKey(uid);
            if (state.calls().isEmpty() && state.lost().isEmpty() && !state.closed()) assertThat(state.claims()).as("the book between calls").isEqualTo(recorded);
        }

        List<DriverAction> step(List<DriverEvent> events) {
            var r = step.next(state, events, new Now(0, Instant.EPOCH));
            state = r.state();
            for (DriverAction a : r.actions()) {
                switch (a) {
                    case WriteFiles w -> held.add(List.of(new DriverEvent.FilesWritten(w.call(), w.claim().uid(),
                            random.nextInt(5) == 0 ? Optional.of("No space left on device") : Optional.empty())));
                    case RemoveFiles rm -> held.add(List.of(new DriverEvent.FilesRemoved(rm.call(), rm.claim(), rm.undo(),
                            random.nextInt(5) == 0 ? Optional.of("Device or resource busy") : Optional.empty())));
                    case SaveCheckpoint s -> {
                        boolean ok = random.nextInt(5) > 0;
                        if (ok) {
                            recorded = new TreeMap<>();
                            for (PreparedClaim c : s.claims()) recorded.put(c.uid(), c);
                            recordedIncomplete = s.incomplete();
                        }
                        held.add(List.of(new DriverEvent.CheckpointSaved(s.call(), ok ? Optional.empty() : Optional.of("Read-only file system"))));
                    }
                    case AnswerPrepare p -> {
                        assertThat(answered.add(p.call())).as("call %d answered twice", p.call()).isTrue();
                        p.answers().forEach((uid, answer) -> {
                            if (answer instanceof PrepareAnswer.Prepared done) {
                                // or, a claim rebuilt from what the kubelet has, answered again while the checkpoint says it may lack some
                                if (recordedIncomplete.isEmpty() || !kubelet.containsKey(uid)) {
                                    assertThat(recorded.get(uid)).as("claim %s told prepared but not recorded", uid).isEqualTo(done.claim());
                                }
                                Set<String> names = new TreeSet<>();
                                done.claim().devices().forEach(d -> names.add(d.device()));
                                kubelet.put(uid, names);
                                preparedIn.put(uid, p.call());
                                // an unprepare queued before this answer may have let the API forget it
                                api.putIfAbsent(uid, names.toArray(String[]::new));
                            }
                        });
                    }
                    case AnswerUnprepare u -> {
                        assertThat(answered.add(u.call())).as("call %d answered twice", u.call()).isTrue();
                        u.errors().forEach((uid, error) -> {
                            if (error.isEmpty()) {
                                assertThat(recorded).as("claim %s told unprepared but still recorded", uid).doesNotContainKey(uid);
                                kubelet.remove(uid);
                                api.remove(uid);
                                // unless a later call prepares it again
                                if (prepareAsked.getOrDefault(uid, 0L) < u.call()) dropped.add(uid);
                            }
                        });
                    }
                    default -> { }
                }
            }
            return r.actions();
        }
    }
}
