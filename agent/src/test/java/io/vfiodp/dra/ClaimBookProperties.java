package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.handover.HandoverClaims;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import io.vfiodp.state.Damage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.slf4j.event.Level;

/**
 * The claims' book under random histories: prepares and unprepares of claims that compete for
 * devices (the API allocates each claim devices at random, another claim's included, as a confused
 * scheduler or a hand would), devices flapping, and file writes, removals and checkpoint writes that
 * fail. Whatever happens, no device is prepared for two claims, the kubelet is told a claim is
 * prepared (or unprepared) only once the checkpoint says so, a claim told unprepared holds nothing
 * until it is prepared again, every call gets one answer, and between calls the book is the
 * checkpoint. And across restarts on a real checkpoint damaged at random while the driver is
 * stopped ({@link Damage}: bytes, truncation, garbage, wrong types, another version, removed, a
 * directory), with the driver killed at random just after a save and before its answer, PodResources
 * answering or not and its readings reaching the book late: no device is ever prepared for two
 * claims the kubelet's pods use, whatever the checkpoint said.
 */
class ClaimBookProperties {

    private static final String[] DEVICES = {"pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0"};
    private static final TargetState NODE = DraNodes.allDra("t4-numa");
    private static final TargetState FLAPPED = DraNodes.withHealth(NODE, "0000:1b:00.0", Health.unhealthy("flapped"));

    enum Kind { PREPARE, UNPREPARE, FLAP, OUTCOMES, RESTART, DAMAGE, PODS_DOWN, PODS_UP, READ, KILL }

    record Move(Kind kind, int pick, boolean ok) {}

    private static Arbitrary<List<Move>> of(Arbitrary<Kind> kinds, int most) {
        Arbitrary<Move> move = Combinators.combine(kinds, Arbitraries.integers().between(0, 4095), Arbitraries.of(true, true, false)).as(Move::new);
        return move.list().ofMinSize(1).ofMaxSize(most);
    }

    @Provide
    Arbitrary<List<Move>> histories() {
        return of(Arbitraries.of(Kind.PREPARE, Kind.UNPREPARE, Kind.FLAP), 40);
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

            assertThat(world.answered).as("calls answered").isEqualTo(world.asked);
            assertThat(world.book.claims()).as("the book once every call is answered").isEqualTo(world.recorded);
            world.book.close();
            assertThat(world.book.prepare(List.of(ClaimScript.fetched("c0", "u-0", DEVICES[0]))).values()).as("answers after close")
                    .allMatch(a -> a instanceof PrepareAnswer.Failed);
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
        Path dir = Files.createTempDirectory("claim-book");
        try {
            history.accept(new World(dir, random));
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The driver dies: nothing after this point of a call happens, and the kubelet gets no answer. */
    private static final class Killed extends RuntimeException {
        Killed() {
            super("killed", null, false, false);
        }
    }

    /**
     * The book with files and a checkpoint that fail when the dice say so (and a driver killed
     * just after a save, when told to); the kubelet, which keeps what it was told; the API's
     * claims; and PodResources, whose readings the handler takes while the checkpoint is lost, and a
     * pass's, which reach the book later.
     */
    private static final class World implements ClaimBook.Edges {
        private final Random random;
        private final Checkpoint checkpoint;
        private final ClaimFiles files;
        private ClaimBook book;
        private final Queue<ClaimRecovery.Reading> held = new ArrayDeque<>();
        // what the last successful save recorded, written to the real file when the driver stops
        private SortedMap<String, PreparedClaim> recorded = new TreeMap<>();
        private Optional<String> recordedIncomplete = Optional.empty();
        // claim UID → the device names the kubelet was told it holds
        private final Map<String, Set<String>> kubelet = new TreeMap<>();
        // claim UID → the last call that asked to prepare it, the last that told the kubelet it is prepared, and the last that
        // asked to unprepare it: once asked, no pod uses it, even where the answer never came (the driver was killed after
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
        private boolean killAfterSave;
        private TargetState offered = NODE;
        private long calls;

        World(Path dir, Random random) {
            this.random = random;
            this.checkpoint = new Checkpoint(dir, DraNodes.DRIVER);
            this.files = new ClaimFiles(DraNodes.DRIVER, dir, dir.resolve("cdi"));
            start();
        }

        /** The driver starts on what its checkpoint says now. */
        private void start() {
            book = switch (checkpoint.load(files)) {
                case Checkpoint.Loaded l -> new ClaimBook(l.claims(), Optional.empty(), DraNodes.DRIVER, DraNodes.NODE, checkpoint.file(), this);
                case Checkpoint.Lost l -> new ClaimBook(l.known(), Optional.of(LostClaims.at(l.reason())), DraNodes.DRIVER, DraNodes.NODE,
                        checkpoint.file(), this);
            };
            recorded = book.claims();
            recordedIncomplete = book.held() instanceof HandoverClaims.Unknown u ? Optional.of(u.reason()) : Optional.empty();
            pass(offered);
        }

        /**
         * A pass: the book takes the devices offered in, and while the checkpoint is lost the pass reads what the kubelet has,
         * as DraDriver.apply does; the reading reaches the book later, after calls it knew nothing of were answered.
         */
        private void pass(TargetState node) {
            offered = node;
            book.offer(DriverView.of(node, DriverScript.SETTINGS.numaForm()));
            if (book.lost()) held.add(kubeletRead());
        }

        void play(Move m) {
            // readings held back reach the book at random moments
            while (!held.isEmpty() && random.nextInt(3) > 0) deliver(held.remove());
            switch (m.kind()) {
                case PREPARE -> {
                    List<ClaimRequest> requests = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        int bits = m.pick() >> (3 * c) & 7;
                        if (bits == 0) continue;
                        String uid = "u-" + c;
                        if (!api.containsKey(uid)) api.put(uid, devicesOf(bits));
                        // the API is asked only about claims not prepared when the call came
                        requests.add(book.isPrepared(uid) ? ClaimScript.known("c" + c, uid) : ClaimScript.fetched("c" + c, uid, api.get(uid)));
                    }
                    if (requests.isEmpty()) return;
                    long call = ++calls;
                    asked.add(call);
                    for (ClaimRequest r : requests) {
                        dropped.remove(r.uid());
                        prepareAsked.put(r.uid(), call);
                    }
                    Map<String, PrepareAnswer> answers;
                    try {
                        // as the handler does: what the kubelet still has is read first while the checkpoint is lost
                        if (book.lost()) book.kubeletRead(kubeletRead());
                        answers = book.prepare(requests);
                    } catch (Killed k) {
                        died(call);
                        return;
                    }
                    answered(call);
                    answers.forEach((uid, answer) -> {
                        if (answer instanceof PrepareAnswer.Prepared done) {
                            // or, a claim rebuilt from what the kubelet has, answered again while the checkpoint says it may lack some
                            if (recordedIncomplete.isEmpty() || !kubelet.containsKey(uid)) {
                                assertThat(recorded.get(uid)).as("claim %s told prepared but not recorded", uid).isEqualTo(done.claim());
                            }
                            Set<String> names = new TreeSet<>();
                            done.claim().devices().forEach(d -> names.add(d.device()));
                            kubelet.put(uid, names);
                            preparedIn.put(uid, call);
                            api.putIfAbsent(uid, names.toArray(String[]::new));
                        }
                    });
                }
                case UNPREPARE -> {
                    List<ClaimRef> refs = new ArrayList<>();
                    for (int c = 0; c < 4; c++) if ((m.pick() >> c & 1) != 0) refs.add(ClaimScript.ref("c" + c, "u-" + c));
                    if (refs.isEmpty()) return;
                    long call = ++calls;
                    asked.add(call);
                    for (ClaimRef r : refs) unprepareAsked.put(r.uid(), call);
                    Map<String, Optional<String>> errors;
                    try {
                        errors = book.unprepare(refs);
                    } catch (Killed k) {
                        died(call);
                        return;
                    }
                    answered(call);
                    errors.forEach((uid, error) -> {
                        if (error.isEmpty()) {
                            assertThat(recorded).as("claim %s told unprepared but still recorded", uid).doesNotContainKey(uid);
                            kubelet.remove(uid);
                            api.remove(uid);
                            dropped.add(uid);
                        }
                    });
                }
                case FLAP -> pass(m.ok() ? NODE : FLAPPED);
                case OUTCOMES -> drain();
                case RESTART -> restart();
                case DAMAGE -> {
                    damage = Damage.values()[m.pick() % Damage.values().length];
                    damagePick = m.pick() * 7919;
                }
                // a handler's or a pass's reading of what the kubelet has, reaching the book later
                case READ -> {
                    if (book.lost()) held.add(kubeletRead());
                }
                case PODS_DOWN -> podResourcesUp = false;
                case PODS_UP -> podResourcesUp = true;
                case KILL -> killAfterSave = true;
            }
            assertInvariants();
        }

        private void answered(long call) {
            assertThat(answered.add(call)).as("call %d answered twice", call).isTrue();
        }

        /** Killed during {@code call}: the kubelet had no answer (it asks again later), and the driver starts again. */
        private void died(long call) {
            asked.remove(call);
            restart();
        }

        /** What the handler reads while the checkpoint is lost: PodResources, and the API's claims it names that the book lacks. */
        private ClaimRecovery.Reading kubeletRead() {
            if (!podResourcesUp) return new ClaimRecovery.Reading(new PodResourcesReading.Unreadable("down"), List.of());
            List<HeldDevice> devices = new ArrayList<>();
            List<ClaimRequest> fetched = new ArrayList<>();
            kubelet.forEach((uid, names) -> {
                String name = "c" + uid.substring(2);
                names.forEach(d -> devices.add(new HeldDevice.ByClaim("vms/pod-" + name, "compute", "vms/" + name, DraNodes.DRIVER, DraNodes.NODE, d)));
                if (!book.isPrepared(uid)) fetched.add(ClaimScript.fetched(name, uid, api.get(uid)));
            });
            return new ClaimRecovery.Reading(new PodResourcesReading.Listed(devices), fetched);
        }

        private static String[] devicesOf(int bits) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < DEVICES.length; i++) if ((bits & 1 << i) != 0) out.add(DEVICES[i]);
            return out.toArray(String[]::new);
        }

        /**
         * The driver stops, its checkpoint is what it recorded last, the claims' CDI specs stay,
         * the damage due is done, and it starts again.
         */
        private void restart() {
            book.close();
            held.clear();
            killAfterSave = false;
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
            while (!held.isEmpty()) deliver(held.remove());
            assertInvariants();
        }

        private void deliver(ClaimRecovery.Reading reading) {
            try {
                book.kubeletRead(reading);
            } catch (Killed k) {
                restart();
            }
        }

        /** What must hold between two calls. */
        private void assertInvariants() {
            SortedMap<String, PreparedClaim> claims = book.claims();
            Map<String, String> holders = new HashMap<>();
            for (PreparedClaim c : claims.values()) {
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
            for (String uid : dropped) assertThat(claims).as("claim %s told unprepared but in the book", uid).doesNotContainKey(uid);
            if (!book.lost()) assertThat(claims).as("the book between calls").isEqualTo(recorded);
        }

        @Override
        public void write(PreparedClaim claim) throws IOException {
            if (random.nextInt(5) == 0) throw new IOException("No space left on device");
        }

        @Override
        public void remove(ClaimRef claim) throws IOException {
            if (random.nextInt(5) == 0) throw new IOException("Device or resource busy");
        }

        @Override
        public void save(List<PreparedClaim> claims, Optional<String> incomplete) throws IOException {
            if (random.nextInt(5) == 0) throw new IOException("Read-only file system");
            recorded = new TreeMap<>();
            for (PreparedClaim c : claims) recorded.put(c.uid(), c);
            recordedIncomplete = incomplete;
            if (killAfterSave && random.nextBoolean()) throw new Killed();
        }

        @Override
        public void log(Level level, String message) {
            // the tables check the lines
        }
    }
}
