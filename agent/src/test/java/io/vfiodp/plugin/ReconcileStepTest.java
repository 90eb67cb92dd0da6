package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.StepScript.K1;
import static io.vfiodp.plugin.StepScript.K2;
import static io.vfiodp.plugin.StepScript.accepted;
import static io.vfiodp.plugin.StepScript.at;
import static io.vfiodp.plugin.StepScript.sweep;
import static io.vfiodp.plugin.StepScript.close;
import static io.vfiodp.plugin.StepScript.created;
import static io.vfiodp.plugin.StepScript.failed;
import static io.vfiodp.plugin.StepScript.refused;
import static io.vfiodp.plugin.StepScript.started;
import static io.vfiodp.plugin.StepScript.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.StepScript.At;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reconcile step from tables: given what happened before, one event at a time gives exactly
 * these actions. No socket, thread or clock: {@link StepScript} plays the loop around the step.
 */
class ReconcileStepTest {

    private static final String T4 = "nvidia.com/T4";
    private static final String A100 = "nvidia.com/A100";
    private static final ExposedDevice GPU_A = pci("0000:3b:00.0", 12, 0);
    private static final ExposedDevice GPU_B = pci("0000:af:00.0", 87, 1);
    private static final ExposedDevice GPU_C = pci("0000:86:00.0", 60, -1);
    private static final ExposedDevice GPU_D = pci("0000:d8:00.0", 99, 1);
    private static final TargetState ONE = state(resource(T4, GPU_A, GPU_B));
    private static final TargetState BOTH = state(resource(T4, GPU_A, GPU_B), resource(A100, GPU_C));

    private static final String T4_SOCKET = "vfio-dp-nvidia.com_T4.sock";
    private static final String A100_SOCKET = "vfio-dp-nvidia.com_A100.sock";
    private static final String T4_PATH = "/plugins/" + T4_SOCKET;
    private static final String T4_DEVICES = "[0000:3b:00.0 Healthy, 0000:af:00.0 Healthy]";
    private static final String SERVING_T4 = "INFO nvidia.com/T4: serving 2 device(s) on " + T4_SOCKET + " (0000:3b:00.0, 0000:af:00.0)";
    private static final String REGISTER_T4 = "register T4 epoch 1 gen 1 with K1 as " + T4_SOCKET;
    private static final String BLOCKED = "a directory that is not empty is in its place";

    /** T4 serving, no kubelet.sock. */
    private static final List<At> SERVING = List.of(at(0, target(ONE)), at(0, started(T4, 1)));
    /** T4 serving, its Register for kubelet K1 (epoch 1) in flight. */
    private static final List<At> IN_FLIGHT = List.of(at(0, sweep(K1)), at(0, target(ONE)), at(0, started(T4, 1)));
    /** T4 registered with K1. */
    private static final List<At> REGISTERED = plus(IN_FLIGHT, at(0, accepted(T4, 1, 1)));
    /** T4's first Register failed at 0 ms. */
    private static final List<At> REFUSED = plus(IN_FLIGHT, at(0, refused(T4, 1, 1, "connection refused")));
    /** Both resources registered with K1: A100 is generation 1, T4 generation 2 (started in name order). */
    private static final List<At> BOTH_REGISTERED = List.of(at(0, sweep(K1)), at(0, target(BOTH)), at(0, started(A100, 1)),
            at(0, started(T4, 2)), at(0, accepted(A100, 1, 1)), at(0, accepted(T4, 1, 2)));
    /** T4's first start failed at 0 ms because a directory blocks its socket path. */
    private static final List<At> START_FAILED = List.of(at(0, target(ONE)), at(0, failed(T4, 1, BLOCKED)));

    static Stream<Arguments> transitions() {
        return Stream.of(
                // Serving
                row("a new resource's server starts at once, resources in name order", List.of(), at(0, target(BOTH)),
                        "start A100 gen 1 on /plugins/" + A100_SOCKET + " [0000:86:00.0 Healthy]",
                        "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("a started server is logged and not registered while kubelet.sock is missing", List.of(at(0, target(ONE))),
                        at(0, started(T4, 1)), SERVING_T4),
                row("a started server registers with the kubelet that is there", List.of(at(0, sweep(K1)), at(0, target(ONE))),
                        at(0, started(T4, 1)), SERVING_T4, REGISTER_T4),
                row("kubelet.sock appearing registers every running server", plus(List.of(at(0, target(BOTH))), at(0, started(A100, 1)),
                                at(0, started(T4, 2))), at(5, sweep(K1)),
                        "INFO kubelet.sock is there: registering 2 resource(s)", "register A100 epoch 1 gen 1 with K1 as " + A100_SOCKET,
                        "register T4 epoch 1 gen 2 with K1 as " + T4_SOCKET),
                row("a first target and the first kubelet at once: the log counts what is registered", List.of(),
                        at(0, target(BOTH), sweep(K1)), "INFO kubelet.sock is there: registering 2 resource(s)",
                        "start A100 gen 1 on /plugins/" + A100_SOCKET + " [0000:86:00.0 Healthy]",
                        "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("an accepted registration is told as a first one and logged", IN_FLIGHT, at(0, accepted(T4, 1, 1)),
                        "tell registered T4 first", "INFO nvidia.com/T4: registered with the kubelet (endpoint " + T4_SOCKET + ")"),

                // Registration failures
                row("a failed registration is retried after the first backoff", IN_FLIGHT, at(0, refused(T4, 1, 1, "connection refused")),
                        "WARN nvidia.com/T4: registration failed (attempt 1): connection refused; retrying in 200 ms", "wake at 200 ms"),
                row("a sweep before the retry is due sends nothing and keeps the wake-up", REFUSED, at(199, sweep(K1)), "wake at 200 ms"),
                row("the retry goes out when due", REFUSED, at(200, sweep(K1)), REGISTER_T4),
                row("no registration is due while kubelet.sock is missing, so no wake-up either", plus(REFUSED, at(10, sweep())),
                        at(300, sweep())),

                // Never a second Register for one kubelet and one server
                row("a sweep finding the same kubelet.sock sends nothing while a Register is in flight", IN_FLIGHT, at(5, sweep(K1))),
                row("a sweep finding the same kubelet.sock sends nothing once registered", REGISTERED, at(5, sweep(K1))),
                row("kubelet.sock created with the identity already known sends nothing once registered", REGISTERED, at(5, created())),
                row("kubelet.sock created sends nothing while a Register is in flight", IN_FLIGHT, at(5, created())),
                row("a second answer for the same attempt is ignored", REGISTERED, at(5, accepted(T4, 1, 1))),

                // Kubelet restarts
                row("kubelet.sock created cuts a registration backoff short", REFUSED, at(50, created()), REGISTER_T4),
                row("after kubelet.sock was created, earlier failures are forgotten", plus(REFUSED, at(50, created())),
                        at(60, refused(T4, 1, 1, "connection refused")),
                        "WARN nvidia.com/T4: registration failed (attempt 1): connection refused; retrying in 200 ms", "wake at 260 ms"),
                row("failures before an attempt in flight are forgotten when kubelet.sock is created",
                        plus(REFUSED, at(200, sweep(K1)), at(250, created())), at(260, refused(T4, 1, 1, "connection refused")),
                        "WARN nvidia.com/T4: registration failed (attempt 1): connection refused; retrying in 200 ms", "wake at 460 ms"),
                row("kubelet.sock created together with the sweep that finds it new registers once, with the new kubelet", REFUSED,
                        at(50, created(), sweep(K2)), "INFO kubelet.sock was re-created (kubelet restart): registering 1 resource(s) again",
                        "register T4 epoch 2 gen 1 with K2 as " + T4_SOCKET),
                row("a restarting kubelet deletes our sockets and creates its own: one new server, one Register", REGISTERED,
                        at(50, created(), sweep(K2, T4)), "INFO kubelet.sock was re-created (kubelet restart): registering 1 resource(s) again",
                        "INFO nvidia.com/T4: socket " + T4_SOCKET + " was removed (kubelet restart?); restarting its server", "stop T4 gen 1",
                        "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("a new kubelet gets every resource registered again", BOTH_REGISTERED, at(10, sweep(K2)),
                        "INFO kubelet.sock was re-created (kubelet restart): registering 2 resource(s) again",
                        "register A100 epoch 2 gen 1 with K2 as " + A100_SOCKET, "register T4 epoch 2 gen 2 with K2 as " + T4_SOCKET),
                row("the new kubelet's acceptance is told as a re-registration", plus(REGISTERED, at(10, sweep(K2))),
                        at(20, accepted(T4, 2, 1)), "tell registered T4 again",
                        "INFO nvidia.com/T4: registered with the kubelet (endpoint " + T4_SOCKET + ")"),
                row("kubelet.sock gone is logged and nothing is sent", REGISTERED, at(10, sweep()),
                        "INFO kubelet.sock is gone; waiting for the kubelet to come back"),
                row("kubelet.sock back as a new file registers at once", plus(REFUSED, at(10, sweep())), at(300, sweep(K2)),
                        "INFO kubelet.sock was re-created (kubelet restart): registering 1 resource(s) again",
                        "register T4 epoch 2 gen 1 with K2 as " + T4_SOCKET),

                // Stale answers
                row("an acceptance by a kubelet that has since restarted is ignored", plus(IN_FLIGHT, at(10, sweep(K2))),
                        at(20, accepted(T4, 1, 1))),
                row("a failure from a kubelet that has since restarted is ignored", plus(IN_FLIGHT, at(10, sweep(K2))),
                        at(20, refused(T4, 1, 1, "connection reset"))),
                row("an acceptance for a server since replaced is ignored",
                        plus(IN_FLIGHT, at(10, sweep(K1, T4)), at(10, started(T4, 2))), at(20, accepted(T4, 1, 1))),
                row("an acceptance for a resource removed and added again is ignored",
                        plus(IN_FLIGHT, at(10, target(TargetState.EMPTY)), at(10, target(ONE)), at(10, started(T4, 2))),
                        at(20, accepted(T4, 1, 1))),

                // Our sockets
                row("a removed socket restarts its server as a new generation", REGISTERED, at(10, sweep(K1, T4)),
                        "INFO nvidia.com/T4: socket " + T4_SOCKET + " was removed (kubelet restart?); restarting its server", "stop T4 gen 1",
                        "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("the restarted server registers once more", plus(REGISTERED, at(10, sweep(K1, T4))), at(10, started(T4, 2)), SERVING_T4,
                        "register T4 epoch 1 gen 2 with K1 as " + T4_SOCKET),
                row("a start answer nobody waits for stops that server", List.of(at(0, target(ONE)), at(0, target(TargetState.EMPTY))),
                        at(0, started(T4, 1)), "stop T4 gen 1"),

                // Start failures
                row("a failed start is logged with its problem and retried after the first backoff", List.of(at(0, target(ONE))),
                        at(0, failed(T4, 1, BLOCKED)), "WARN nvidia.com/T4: cannot serve on " + T4_PATH + ": " + BLOCKED
                                + "; other resources are not affected; retrying (backoff 200 to 1000 ms)", "wake at 200 ms"),
                row("a sweep before the start is due only keeps the wake-up", START_FAILED, at(100, sweep()), "wake at 200 ms"),
                row("the start is tried again when due", START_FAILED, at(200, sweep()), "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("a start failing again with the same problem is not logged again", plus(START_FAILED, at(200, sweep())),
                        at(200, failed(T4, 2, BLOCKED)), "wake at 600 ms"),
                row("a start failing with a new problem is logged", plus(START_FAILED, at(200, sweep())),
                        at(200, failed(T4, 2, "Permission denied")), "WARN nvidia.com/T4: cannot serve on " + T4_PATH
                                + ": Permission denied; other resources are not affected; retrying (backoff 200 to 1000 ms)", "wake at 600 ms"),
                row("a start that works after failures says how many", plus(START_FAILED, at(200, sweep()), at(200, failed(T4, 2, BLOCKED)),
                                at(600, sweep())), at(600, started(T4, 3)),
                        "INFO nvidia.com/T4: can serve on " + T4_PATH + " again after 2 failed attempt(s)", SERVING_T4),
                row("kubelet.sock created cuts a start backoff short", START_FAILED, at(50, created()),
                        "start T4 gen 2 on " + T4_PATH + " " + T4_DEVICES),
                row("but keeps counting start failures", plus(START_FAILED, at(50, created())), at(50, failed(T4, 2, BLOCKED)),
                        "wake at 450 ms"),
                row("the wake-up is the earliest due time of all resources",
                        List.of(at(0, sweep(K1)), at(0, target(BOTH)), at(0, started(A100, 1)), at(0, failed(T4, 2, BLOCKED))),
                        at(100, refused(A100, 1, 1, "connection refused")),
                        "WARN nvidia.com/A100: registration failed (attempt 1): connection refused; retrying in 200 ms", "wake at 200 ms"),

                // Views
                row("an equal target changes nothing", SERVING, at(10, target(state(resource(T4, GPU_A, GPU_B))))),
                row("a device turning unhealthy is told, logged and published", SERVING, at(10, target(ONE_B_DOWN)),
                        "tell health T4 0000:af:00.0 Healthy -> Unhealthy", "WARN nvidia.com/T4: device 0000:af:00.0 is now Unhealthy: gone",
                        "publish T4 gen 1 [0000:3b:00.0 Healthy, 0000:af:00.0 Unhealthy]"),
                row("a device healthy again is told, logged and published", plus(SERVING, at(10, target(ONE_B_DOWN))), at(20, target(ONE)),
                        "tell health T4 0000:af:00.0 Unhealthy -> Healthy", "INFO nvidia.com/T4: device 0000:af:00.0 is Healthy again",
                        "publish T4 gen 1 " + T4_DEVICES),
                row("devices added and removed are logged, not told as health changes", SERVING,
                        at(10, target(state(resource(T4, GPU_A, GPU_D)))),
                        "INFO nvidia.com/T4: device 0000:d8:00.0 added (NUMA 1, IOMMU group 99, Healthy)",
                        "INFO nvidia.com/T4: device 0000:af:00.0 removed", "publish T4 gen 1 [0000:3b:00.0 Healthy, 0000:d8:00.0 Healthy]"),
                row("a view that changes while the server is down is what it starts with",
                        plus(START_FAILED, at(10, target(state(resource(T4, GPU_A))))), at(200, sweep()),
                        "start T4 gen 2 on " + T4_PATH + " [0000:3b:00.0 Healthy]"),
                row("a resource no longer targeted gets a final empty list and its socket removed", BOTH_REGISTERED, at(10, target(ONE)),
                        "stop A100 gen 1 with a final empty list",
                        "INFO nvidia.com/A100: no longer served; socket " + A100_SOCKET + " removed",
                        // every view is new: which resource owns a device changed, and Allocate's refusals name it
                        "publish T4 gen 2 " + T4_DEVICES),
                row("a resource no longer targeted whose server is down only goes", START_FAILED, at(10, target(TargetState.EMPTY)),
                        "INFO nvidia.com/T4: no longer served; socket " + T4_SOCKET + " removed"),

                // Close
                // the kubelet keeps a resource whose stream ended for its grace, but forgets one that listed nothing
                row("close ends every running server without an empty list", BOTH_REGISTERED, at(10, close()),
                        "stop A100 gen 1", "INFO nvidia.com/A100: stopped; socket " + A100_SOCKET + " removed",
                        "stop T4 gen 2", "INFO nvidia.com/T4: stopped; socket " + T4_SOCKET + " removed"),
                row("close stops a server still starting, without an empty list", List.of(at(0, target(ONE))), at(10, close()),
                        "stop T4 gen 1"),
                row("close has nothing to stop for a server that is down", START_FAILED, at(10, close())),
                row("after close a sweep does nothing", plus(SERVING, at(10, close())), at(20, sweep(K1))),
                row("after close a target does nothing", plus(SERVING, at(10, close())), at(20, target(BOTH))),
                row("after close a registration answer does nothing", plus(IN_FLIGHT, at(10, close())), at(20, accepted(T4, 1, 1))));
    }

    private static final TargetState ONE_B_DOWN = state(resource(T4, GPU_A, GPU_B.withHealth(Health.unhealthy("gone"))));

    @ParameterizedTest(name = "{0}")
    @MethodSource("transitions")
    void transition(String behaviour, List<At> given, At when, List<String> expected) {
        StepScript script = new StepScript();
        script.feedAll(given);

        assertThat(script.feed(when)).containsExactlyElementsOf(expected);
    }

    /** Failures in a row → the wait before the next attempt: 200 ms doubling, capped at 1 s. */
    static Stream<Arguments> backoffs() {
        return Stream.of(Arguments.of(1, 200), Arguments.of(2, 400), Arguments.of(3, 800), Arguments.of(4, 1000), Arguments.of(5, 1000),
                Arguments.of(8, 1000));
    }

    @ParameterizedTest(name = "registration failure {0} waits {1} ms")
    @MethodSource("backoffs")
    void registrationBackoffGrowsAndIsCapped(int failures, long waitMs) {
        StepScript script = new StepScript();
        script.feedAll(IN_FLIGHT);
        long now = 0;
        for (int i = 1; i < failures; i++) {
            script.feed(at(now, refused(T4, 1, 1, "connection refused")));
            now += StepScript.BACKOFF.delayAfter(i).toMillis();
            assertThat(script.feed(at(now, sweep(K1)))).as("retry %d", i).containsExactly(REGISTER_T4);
        }

        assertThat(script.feed(at(now, refused(T4, 1, 1, "connection refused")))).containsExactly(
                "WARN nvidia.com/T4: registration failed (attempt " + failures + "): connection refused; retrying in " + waitMs + " ms",
                "wake at " + (now + waitMs) + " ms");
    }

    @ParameterizedTest(name = "start failure {0} waits {1} ms")
    @MethodSource("backoffs")
    void startBackoffGrowsAndIsCappedAndTheProblemIsLoggedOnce(int failures, long waitMs) {
        StepScript script = new StepScript();
        List<String> actions = new ArrayList<>(script.feed(at(0, target(ONE))));
        long now = 0;
        for (int i = 1; i < failures; i++) {
            actions.addAll(script.feed(at(now, failed(T4, i, BLOCKED))));
            now += StepScript.BACKOFF.delayAfter(i).toMillis();
            actions.addAll(script.feed(at(now, sweep())));
        }

        actions.addAll(script.feed(at(now, failed(T4, failures, BLOCKED))));

        assertThat(actions).filteredOn(a -> a.startsWith("WARN")).hasSize(1);
        assertThat(actions).filteredOn(a -> a.startsWith("start")).hasSize(failures);
        assertThat(actions.getLast()).isEqualTo("wake at " + (now + waitMs) + " ms");
    }

    @Test
    void aResourceWithoutRoomForItsSocketNameIsNotServedAndSaysWhy() {
        Path dir = Path.of("/" + "d".repeat(100));
        ReconcileStep step = new ReconcileStep(dir, StepScript.BACKOFF);

        var r = step.next(ReconcileState.INITIAL, List.of(target(ONE)), 0);

        assertThat(r.actions()).extracting(StepScript::render).containsExactly("WARN nvidia.com/T4: cannot serve: device-plugin dir " + dir
                + " is too long: a socket path in it cannot stay within 107 bytes (the directory's path has 101 bytes; at most 81 leave room"
                + " for the socket of every resource name)");
        assertThat(r.state().resources()).isEmpty();
    }

    @Test
    void statusCountsARegistrationOnlyForTheKubeletThatAcceptedIt() {
        StepScript script = new StepScript();
        script.feedAll(plus(BOTH_REGISTERED, at(10, target(state(resource(T4, GPU_A, GPU_B.withHealth(Health.unhealthy("gone"))),
                resource(A100, GPU_C))))));
        assertThat(script.state().statuses(generation -> (int) generation * 10)).containsExactly(
                new ResourceStatus(ResourceName.of(A100), StepScript.DIR.resolve(A100_SOCKET), true, true, 1, 1, 10),
                new ResourceStatus(ResourceName.of(T4), StepScript.DIR.resolve(T4_SOCKET), true, true, 2, 1, 20));

        script.feed(at(20, sweep(K2)));
        script.feed(at(20, accepted(A100, 2, 1)));

        assertThat(script.state().statuses(generation -> 0)).extracting(ResourceStatus::name, ResourceStatus::registered).containsExactly(
                org.assertj.core.groups.Tuple.tuple(ResourceName.of(A100), true), org.assertj.core.groups.Tuple.tuple(ResourceName.of(T4), false));
    }

    @Test
    void statusShowsAServerThatCannotStartAsNotServing() {
        StepScript script = new StepScript();
        script.feedAll(START_FAILED);

        assertThat(script.state().statuses(generation -> 1)).containsExactly(
                new ResourceStatus(ResourceName.of(T4), StepScript.DIR.resolve(T4_SOCKET), false, false, 2, 2, 0));
    }

    private static Arguments row(String behaviour, List<At> given, At when, String... expected) {
        return Arguments.of(behaviour, given, when, List.of(expected));
    }

    private static List<At> plus(List<At> given, At... more) {
        List<At> all = new ArrayList<>(given);
        all.addAll(List.of(more));
        return List.copyOf(all);
    }
}
