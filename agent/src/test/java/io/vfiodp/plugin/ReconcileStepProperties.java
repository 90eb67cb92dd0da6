package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.kubelet.ServerState;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.ReconcileAction.Publish;
import io.vfiodp.plugin.ReconcileAction.Register;
import io.vfiodp.plugin.ReconcileAction.StartServer;
import io.vfiodp.plugin.ReconcileAction.StopServer;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The reconcile step under random histories: targets coming and going, kubelet restarts, sockets
 * removed, servers that fail to start, registrations answered late, in any order, or failed.
 * Played the way {@link ReconcileLoop} plays it (every event with a sweep of the files, start outcomes fed
 * back at once), the step keeps its promises whatever happens.
 */
class ReconcileStepProperties {

    private static final List<DesiredResource> RESOURCES = List.of(
            resource("nvidia.com/T4", pci("0000:3b:00.0", 12, 0), pci("0000:af:00.0", 87, 1)),
            resource("nvidia.com/A100", pci("0000:86:00.0", 60, -1)),
            resource("nvidia.com/V100", pci("0000:d8:00.0", 99, 1)));

    enum Kind { TARGET, SWEEP, SOCKETS_GONE, KUBELET_RESTART, KUBELET_GONE, ANSWER, TIME }

    record Move(Kind kind, int pick, boolean ok) {}

    record Key(ResourceName name, long epoch, long generation) {}

    @Provide
    Arbitrary<List<Move>> histories() {
        Arbitrary<Move> move = Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 1500),
                Arbitraries.of(true, true, true, false)).as(Move::new);
        return move.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 1000)
    void neverASecondRegisterForOneKubeletAndServerAndEveryServerIsAccountedFor(@ForAll("histories") List<Move> history,
                                                                               @ForAll Random random) {
        World world = new World(random);
        for (Move m : history) world.play(m);
        world.feed(List.of(new ReconcileEvent.Close()));

        assertThat(world.running).as("servers left running after close").isEmpty();
        assertThat(world.step(List.of(new ReconcileEvent.Swept(Optional.of(StepScript.K1), Set.of())), new ArrayDeque<>()))
                .as("actions after close").isEmpty();
    }

    /** The loop around the step, with a kubelet that answers when the history says so. */
    private static final class World {
        private final ReconcileStep step = new ReconcileStep(StepScript.DIR, StepScript.BACKOFF);
        private final Random random;
        private ReconcileState state = ReconcileState.INITIAL;
        private long now = 1_000_000_000L;
        private Optional<FileIdentity> kubelet = Optional.empty();
        private int kubelets;
        private final Set<Long> generations = new HashSet<>();
        private final Set<Long> running = new HashSet<>();
        private final List<Key> unanswered = new ArrayList<>();
        private final Set<Key> accepted = new HashSet<>();
        private Optional<Long> lastWake = Optional.empty();

        World(Random random) {
            this.random = random;
        }

        void play(Move m) {
            switch (m.kind()) {
                case TARGET -> {
                    List<DesiredResource> chosen = new ArrayList<>();
                    for (int i = 0; i < RESOURCES.size(); i++) if ((m.pick() & 1 << i) != 0) chosen.add(RESOURCES.get(i));
                    if (!m.ok() && !chosen.isEmpty()) chosen.set(0, unhealthy(chosen.getFirst()));
                    sweepThen(new ReconcileEvent.TargetChanged(chosen.isEmpty() ? TargetState.EMPTY : state(chosen.toArray(DesiredResource[]::new))));
                }
                case SWEEP -> sweepThen(null);
                case SOCKETS_GONE -> feed(List.of(new ReconcileEvent.Swept(kubelet, upResources(m.pick()))));
                case KUBELET_RESTART -> {
                    // A starting kubelet deletes the sockets in the directory, ours too (most of the time before we look).
                    Set<ResourceName> gone = m.ok() ? upResources(-1) : Set.of();
                    kubelet = Optional.of(new FileIdentity("0:" + (100 + ++kubelets), FileTime.fromMillis(kubelets)));
                    feed(List.of(new ReconcileEvent.KubeletSocketCreated(), new ReconcileEvent.Swept(kubelet, gone)));
                }
                case KUBELET_GONE -> {
                    kubelet = Optional.empty();
                    sweepThen(null);
                }
                case ANSWER -> {
                    if (unanswered.isEmpty()) return;
                    Key k = unanswered.remove(m.pick() % unanswered.size());
                    if (m.ok()) accepted.add(k);
                    sweepThen(m.ok() ? new ReconcileEvent.RegistrationAccepted(k.name(), k.epoch(), k.generation())
                            : new ReconcileEvent.RegistrationFailed(k.name(), k.epoch(), k.generation(), "connection refused"));
                }
                case TIME -> {
                    now += Duration.ofMillis(m.pick()).toNanos();
                    sweepThen(null);
                }
            }
        }

        private Set<ResourceName> upResources(int bits) {
            Set<ResourceName> out = new HashSet<>();
            int i = 0;
            for (ResourceState r : state.resources().values()) {
                if (r.server() instanceof ServerState.Up && (bits & 1 << i++) != 0) out.add(r.name());
            }
            return out;
        }

        private void sweepThen(ReconcileEvent event) {
            ReconcileEvent swept = new ReconcileEvent.Swept(kubelet, Set.of());
            feed(event == null ? List.of(swept) : List.of(event, swept));
        }

        /** Runs a step and every outcome it leads to, then checks what must hold between two events. */
        void feed(List<ReconcileEvent> first) {
            Queue<List<ReconcileEvent>> events = new ArrayDeque<>(List.of(first));
            while (!events.isEmpty()) step(events.remove(), events);
            if (state.closed()) return;
            long nextDue = Long.MAX_VALUE;
            for (ResourceState r : state.resources().values()) {
                switch (r.server()) {
                    case ServerState.Starting s -> throw new AssertionError(r.name() + " still starting after its outcome was fed");
                    case ServerState.Down d -> nextDue = Math.min(nextDue, d.nextStart() - now);
                    case ServerState.Up up -> {
                        assertThat(running).as("server of %s", r.name()).contains(up.generation());
                        if (r.registration() instanceof Registration.Registered) {
                            assertThat(accepted).contains(new Key(r.name(), state.epoch(), up.generation()));
                        }
                        if (r.registration() instanceof Registration.Unregistered u && kubelet.isPresent()) {
                            nextDue = Math.min(nextDue, u.nextAttempt() - now);
                        }
                    }
                }
            }
            assertThat(nextDue).as("something due was left undone").isPositive();
            long due = nextDue;
            assertThat(lastWake.stream().map(at -> at - now).toList())
                    .as("the last step asks to be woken when the next thing is due, and only then")
                    .isEqualTo(due == Long.MAX_VALUE ? List.of() : List.of(due));
            assertThat(running).as("servers running").hasSize((int) state.resources().values().stream()
                    .filter(r -> r.server() instanceof ServerState.Up).count());
        }

        List<ReconcileAction> step(List<ReconcileEvent> events, Queue<List<ReconcileEvent>> outcomes) {
            var r = step.next(state, events, now);
            state = r.state();
            lastWake = r.wakeAt();
            for (ReconcileAction a : r.actions()) {
                switch (a) {
                    case StartServer s -> {
                        assertThat(generations.add(s.generation())).as("generation %d used twice", s.generation()).isTrue();
                        if (random.nextInt(5) == 0) {
                            outcomes.add(List.of(new ReconcileEvent.ServerFailed(s.name(), s.generation(), "bind failed " + random.nextInt(2))));
                        } else {
                            running.add(s.generation());
                            outcomes.add(List.of(new ReconcileEvent.ServerStarted(s.name(), s.generation())));
                        }
                    }
                    case StopServer s -> assertThat(running.remove(s.generation())).as("stop of a server not running").isTrue();
                    case Publish p -> assertThat(running).contains(p.generation());
                    case Register reg -> {
                        Key k = new Key(reg.name(), reg.epoch(), reg.generation());
                        assertThat(unanswered).as("Register while one is unanswered").doesNotContain(k);
                        assertThat(accepted).as("Register after it was accepted").doesNotContain(k);
                        assertThat(reg.kubelet()).isEqualTo(kubelet.orElseThrow());
                        unanswered.add(k);
                    }
                    default -> { }
                }
            }
            return r.actions();
        }

        private static DesiredResource unhealthy(DesiredResource r) {
            return new DesiredResource(r.name(), r.kind(), List.of(r.devices().getFirst().withHealth(Health.unhealthy("flapped"))));
        }
    }
}
