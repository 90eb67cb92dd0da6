package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DriverAction.AnswerPrepare;
import io.vfiodp.dra.DriverAction.AnswerUnprepare;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The claims' part of the step under random histories: prepares and unprepares of claims that
 * compete for devices, devices flapping, file writes, removals and checkpoint writes that fail,
 * and outcomes that come back late, after further calls. Whatever happens, no device is prepared
 * for two claims, the kubelet is told a claim is prepared (or unprepared) only once the checkpoint
 * says so, every call gets one answer, and between calls the book is the checkpoint.
 */
class ClaimStepProperties {

    private static final String[] DEVICES = {"pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0"};
    private static final TargetState NODE = DraNodes.allDra("t4-numa");
    private static final TargetState FLAPPED = DraNodes.withHealth(NODE, "0000:1b:00.0", Health.unhealthy("flapped"));

    enum Kind { PREPARE, UNPREPARE, FLAP, OUTCOMES }

    record Move(Kind kind, int pick, boolean ok) {}

    @Provide
    Arbitrary<List<Move>> histories() {
        Arbitrary<Move> move = Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 4095),
                Arbitraries.of(true, true, false)).as(Move::new);
        return move.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 500)
    void noDeviceIsPreparedTwiceAndEveryAnswerFollowsTheCheckpoint(@ForAll("histories") List<Move> history, @ForAll Random random) {
        World world = new World(random);
        for (Move m : history) world.play(m);
        world.drain();

        assertThat(world.answered).as("calls answered").isEqualTo(world.asked);
        assertThat(world.state.claims()).as("the book once every call is answered").isEqualTo(world.recorded);
        world.feed(List.of(new DriverEvent.Close()));
        assertThat(world.step(List.of(new DriverEvent.Checked(Set.of())))).as("actions after close").isEmpty();
    }

    /** The loop around the step, with files and a checkpoint that fail when the dice say so, and outcomes held back at times. */
    private static final class World {
        private final DriverStep step = new DriverStep(DriverScript.SETTINGS);
        private final Random random;
        private DriverState state = DriverState.initial(new TreeMap<>(), 0);
        private final Queue<List<DriverEvent>> held = new ArrayDeque<>();
        private SortedMap<String, PreparedClaim> recorded = new TreeMap<>();
        private final Set<Long> asked = new HashSet<>();
        private final Set<Long> answered = new HashSet<>();
        private long calls;

        World(Random random) {
            this.random = random;
            feed(List.of(new DriverEvent.Checked(Set.of())));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.SERVICE, 1)));
            feed(List.of(new DriverEvent.ServerStarted(DriverSocket.REGISTRATION, 2)));
            feed(List.of(new DriverEvent.TargetChanged(NODE)));
            feed(List.of(new DriverEvent.SlicesSynced(new SlicePublisher.Outcome.Synced(1, 1, 3, true, Optional.empty()))));
        }

        void play(Move m) {
            switch (m.kind()) {
                case PREPARE -> {
                    List<ClaimRequest> requests = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        if ((m.pick() >> (3 * c) & 7) == 0) continue;
                        String uid = "u-" + c;
                        // as the handler does: the API is asked only about claims not prepared when the call came
                        requests.add(state.claims().containsKey(uid) ? DriverScript.known("c" + c, uid)
                                : DriverScript.fetched("c" + c, uid, devicesOf(m.pick() >> (3 * c) & 7)));
                    }
                    if (requests.isEmpty()) return;
                    asked.add(++calls);
                    feed(List.of(new DriverEvent.PrepareRequested(calls, requests)));
                }
                case UNPREPARE -> {
                    List<ClaimRef> refs = new ArrayList<>();
                    for (int c = 0; c < 4; c++) if ((m.pick() >> c & 1) != 0) refs.add(DriverScript.ref("c" + c, "u-" + c));
                    if (refs.isEmpty()) return;
                    asked.add(++calls);
                    feed(List.of(new DriverEvent.UnprepareRequested(calls, refs)));
                }
                case FLAP -> feed(List.of(new DriverEvent.TargetChanged(m.ok() ? NODE : FLAPPED)));
                case OUTCOMES -> drain();
            }
        }

        private static String[] devicesOf(int bits) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < DEVICES.length; i++) if ((bits & 1 << i) != 0) out.add(DEVICES[i]);
            return out.toArray(String[]::new);
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
            if (state.calls().isEmpty()) assertThat(state.claims()).as("the book between calls").isEqualTo(recorded);
        }

        List<DriverAction> step(List<DriverEvent> events) {
            DriverStep.Result r = step.next(state, events, new Now(0, Instant.EPOCH));
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
                        }
                        held.add(List.of(new DriverEvent.CheckpointSaved(s.call(), ok ? Optional.empty() : Optional.of("Read-only file system"))));
                    }
                    case AnswerPrepare p -> {
                        assertThat(answered.add(p.call())).as("call %d answered twice", p.call()).isTrue();
                        p.answers().forEach((uid, answer) -> {
                            if (answer instanceof PrepareAnswer.Prepared done) {
                                assertThat(recorded.get(uid)).as("claim %s told prepared but not recorded", uid).isEqualTo(done.claim());
                            }
                        });
                    }
                    case AnswerUnprepare u -> {
                        assertThat(answered.add(u.call())).as("call %d answered twice", u.call()).isTrue();
                        u.errors().forEach((uid, error) -> {
                            if (error.isEmpty()) assertThat(recorded).as("claim %s told unprepared but still recorded", uid).doesNotContainKey(uid);
                        });
                    }
                    default -> { }
                }
            }
            return r.actions();
        }
    }
}
