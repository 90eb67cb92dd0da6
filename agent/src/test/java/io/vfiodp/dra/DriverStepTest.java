package io.vfiodp.dra;

import static io.vfiodp.dra.DriverScript.accepted;
import static io.vfiodp.dra.DriverScript.at;
import static io.vfiodp.dra.DriverScript.sweep;
import static io.vfiodp.dra.DriverScript.close;
import static io.vfiodp.dra.DriverScript.failed;
import static io.vfiodp.dra.DriverScript.heartbeat;
import static io.vfiodp.dra.DriverScript.probeFailed;
import static io.vfiodp.dra.DriverScript.taintsDropped;
import static io.vfiodp.dra.DriverScript.taintsKept;
import static io.vfiodp.dra.DriverScript.writtenWithoutTaints;
import static io.vfiodp.dra.DriverScript.refused;
import static io.vfiodp.dra.DriverScript.resync;
import static io.vfiodp.dra.DriverScript.started;
import static io.vfiodp.dra.DriverScript.syncFailed;
import static io.vfiodp.dra.DriverScript.target;
import static io.vfiodp.dra.DriverScript.upToDate;
import static io.vfiodp.dra.DriverScript.written;
import static io.vfiodp.dra.kubelet.DriverSocket.REGISTRATION;
import static io.vfiodp.dra.kubelet.DriverSocket.SERVICE;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DriverScript.At;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The driver's step from tables, for its sockets, the kubelet's verdict, the view and its health,
 * the slices and closing: given what happened before, one event at a time gives exactly these
 * actions. No socket, thread, API or clock: {@link DriverScript} plays the loop around the step.
 * The claims are {@link ClaimBookTest}'s.
 */
class DriverStepTest {

    static final TargetState NODE = DraNodes.allDra("t4-numa");
    private static final TargetState T4_1A_DOWN = DraNodes.withHealth(NODE, "0000:1a:00.0", Health.unhealthy("/dev/vfio/24 disappeared"));
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String SERVICE_SOCKET = "/plugins/vfio-device-plugin.io/dra.sock";
    private static final String REGISTRATION_SOCKET = "/registry/vfio-device-plugin.io-reg.sock";
    private static final String B2 = "pci-0000-b2-00-0 UNHEALTHY @0s (IOMMU group 65: /dev/vfio/65 missing)";
    private static final String HEALTH = "send health [pci-0000-1a-00-0 HEALTHY @0s, pci-0000-1b-00-0 HEALTHY @0s, pci-0000-b1-00-0 HEALTHY @0s, "
            + B2 + "]";
    private static final String HEALTHY_THREE = "[[pci-0000-1a-00-0, pci-0000-1b-00-0, pci-0000-b1-00-0]]";
    /** The pool where the API server keeps taints: 0000:b2:00.0, whose group node is missing, is in it, tainted. */
    private static final String TAINTED_B2 = "pci-0000-b2-00-0 (tainted IOMMU-group-65-dev-vfio-65-missing)";
    private static final String POOL = "[[pci-0000-1a-00-0, pci-0000-1b-00-0, pci-0000-b1-00-0, " + TAINTED_B2 + "]]";
    private static final String PROBE = "probe taints vfio-device-plugin.io/unhealthy=IOMMU-group-65-dev-vfio-65-missing:NoSchedule";
    private static final String DROPPED = "WARN DRA: the API server drops device taints (feature DRADeviceTaints is off): unhealthy devices leave"
            + " the ResourceSlices of pool node-a instead of staying in them tainted vfio-device-plugin.io/unhealthy:NoSchedule; asked again"
            + " at every resync";
    private static final String BLOCKED = "a directory that is not empty is in its place";
    private static final String NO_REGISTRY = "/registry does not exist (is the kubelet running? mount the kubelet's plugins_registry directory)";

    /** Both sockets served: the DRA service is generation 1, the registration generation 2. */
    static final List<At> SERVING = List.of(at(0, sweep()), at(0, started(SERVICE, 1)), at(0, started(REGISTRATION, 2)));
    /** Serving, the first node state applied, the API server known to keep taints: the slices' first sync in flight. */
    static final List<At> APPLIED = plus(SERVING, at(0, target(NODE)), at(0, taintsKept()));
    /** Serving, the slices written as generation 1. */
    static final List<At> PUBLISHED = plus(APPLIED, at(0, written(1, 1, 4)));
    /** As {@link #PUBLISHED}, where the API server drops taints: the unhealthy device left out. */
    private static final List<At> PUBLISHED_UNTAINTED = plus(SERVING, at(0, target(NODE)), at(0, taintsDropped()), at(0, written(1, 1, 3)));
    /** The DRA service's first start failed at 0 ms. */
    private static final List<At> START_FAILED = List.of(at(0, sweep()), at(0, failed(SERVICE, 1, BLOCKED)));
    /** The first slice sync failed at 0 ms. */
    private static final List<At> SYNC_FAILED = plus(APPLIED, at(0, syncFailed("cannot write the ResourceSlices of pool node-a (HTTP 403): forbidden", 0)));

    static Stream<Arguments> transitions() {
        return Stream.of(
                // Sockets
                row("at start the DRA service is served first", List.of(), at(0, sweep()), "start service gen 1"),
                row("the registration socket follows once the DRA service serves", List.of(at(0, sweep())), at(0, started(SERVICE, 1)),
                        "INFO DRA: DRA service serves on " + SERVICE_SOCKET, "start registration gen 2"),
                row("a registration serving is logged", List.of(at(0, sweep()), at(0, started(SERVICE, 1))), at(0, started(REGISTRATION, 2)),
                        "INFO DRA: registration serves on " + REGISTRATION_SOCKET),
                row("a sweep finding both sockets does nothing", SERVING, at(10, sweep())),
                row("a DRA service that cannot start is logged and retried after the first backoff", List.of(at(0, sweep())),
                        at(0, failed(SERVICE, 1, BLOCKED)), "WARN DRA: cannot serve the DRA service on " + SERVICE_SOCKET + ": " + BLOCKED
                                + "; retrying (backoff up to 1000 ms)", "wake at 200 ms"),
                row("no registration socket is served while the DRA service is not", START_FAILED, at(100, sweep()), "wake at 200 ms"),
                row("the start is tried again when due", START_FAILED, at(200, sweep()), "start service gen 2"),
                row("a start failing again with the same problem is not logged again", plus(START_FAILED, at(200, sweep())),
                        at(200, failed(SERVICE, 2, BLOCKED)), "wake at 600 ms"),
                row("a start failing with a new problem is logged", plus(START_FAILED, at(200, sweep())),
                        at(200, failed(SERVICE, 2, "Permission denied")), "WARN DRA: cannot serve the DRA service on " + SERVICE_SOCKET
                                + ": Permission denied; retrying (backoff up to 1000 ms)", "wake at 600 ms"),
                row("a start that works after failures says how many", plus(START_FAILED, at(200, sweep()), at(200, failed(SERVICE, 2, BLOCKED)),
                                at(600, sweep())), at(600, started(SERVICE, 3)),
                        "INFO DRA: DRA service serves on " + SERVICE_SOCKET + " again after 2 failed attempt(s)", "start registration gen 4"),
                row("a registration socket without the kubelet's directory is retried, the DRA service serving on",
                        List.of(at(0, sweep()), at(0, started(SERVICE, 1))), at(0, failed(REGISTRATION, 2, NO_REGISTRY)),
                        "WARN DRA: cannot serve the registration on " + REGISTRATION_SOCKET + ": " + NO_REGISTRY
                                + "; retrying (backoff up to 1000 ms)", "wake at 200 ms"),
                row("a removed DRA socket is served again, and the registration socket is created again with it", SERVING,
                        at(10, sweep(SERVICE)), "INFO DRA: socket " + SERVICE_SOCKET + " was removed; serving on it again",
                        "stop service gen 1", "stop registration gen 2", "start service gen 3"),
                row("the DRA service served again gets a new registration socket", plus(SERVING, at(10, sweep(SERVICE))),
                        at(10, started(SERVICE, 3)), "INFO DRA: DRA service serves on " + SERVICE_SOCKET, "start registration gen 4"),
                row("a removed registration socket alone is created again", SERVING, at(10, sweep(REGISTRATION)),
                        "INFO DRA: registration socket " + REGISTRATION_SOCKET + " was removed; creating it again for the kubelet's plugin watcher",
                        "stop registration gen 2", "start registration gen 3"),
                row("a start outcome nobody waits for stops that server", plus(SERVING, at(10, sweep(SERVICE))), at(10, started(SERVICE, 1)),
                        "stop service gen 1"),
                row("a start failure nobody waits for changes nothing", SERVING, at(10, failed(REGISTRATION, 1, BLOCKED))),

                // The kubelet's verdict
                row("an accepted registration is logged and the slices are compared again", PUBLISHED, at(10, accepted()),
                        "INFO DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)",
                        "sync slices " + POOL + " above gen 1 owned by node-uid"),
                row("a refused registration is a warning with the kubelet's reason", PUBLISHED, at(10, refused("no supported service")),
                        "WARN DRA: the kubelet refused the registration: no supported service"),
                row("a registration before the first node state publishes nothing", SERVING, at(10, accepted()),
                        "INFO DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)"),

                // The view and its health
                row("nothing is published before the first node state, not even at the resync period", SERVING, at(30_000, resync())),
                row("nor is a health list repeated", SERVING, at(10_000, heartbeat())),
                row("a first node state with an unhealthy device sends every device's health and asks whether the API server keeps taints",
                        SERVING, at(0, target(NODE)), HEALTH, PROBE),
                row("a first node state of healthy devices is published at once", SERVING,
                        at(0, target(DraNodes.withHealth(NODE, "0000:b2:00.0", Health.HEALTHY))),
                        "send health [pci-0000-1a-00-0 HEALTHY @0s, pci-0000-1b-00-0 HEALTHY @0s, pci-0000-b1-00-0 HEALTHY @0s,"
                                + " pci-0000-b2-00-0 HEALTHY @0s]",
                        "sync slices [[pci-0000-1a-00-0, pci-0000-1b-00-0, pci-0000-b1-00-0, pci-0000-b2-00-0]] above gen 0"),
                row("a first node state with nothing for DRA publishes an empty pool, removing a previous run's slices", SERVING,
                        at(0, target(DraNodes.state("t4-numa", DraRouting.NONE))), "send health []", "sync slices [] above gen 0"),
                row("an equal node state changes nothing", PUBLISHED, at(10, target(DraNodes.allDra("t4-numa")))),
                row("a device turning unhealthy is told, logged, sent with its reason and stamp, and stays in its slice tainted", PUBLISHED,
                        at(2000, target(T4_1A_DOWN)), "tell health " + T4 + " 0000:1a:00.0 Healthy -> Unhealthy",
                        "WARN DRA: " + T4 + ": device 0000:1a:00.0 (pci-0000-1a-00-0) is now Unhealthy: /dev/vfio/24 disappeared",
                        "send health [pci-0000-1a-00-0 UNHEALTHY @2s (/dev/vfio/24 disappeared), pci-0000-1b-00-0 HEALTHY @0s, "
                                + "pci-0000-b1-00-0 HEALTHY @0s, " + B2 + "]",
                        "sync slices [[pci-0000-1a-00-0 (tainted dev-vfio-24-disappeared), pci-0000-1b-00-0, pci-0000-b1-00-0, " + TAINTED_B2
                                + "]] above gen 1 owned by node-uid"),
                row("a device healthy again is told, logged and loses its taint", plus(PUBLISHED, at(2000, target(T4_1A_DOWN)), at(2000, written(2, 1, 4))),
                        at(5000, target(NODE)), "tell health " + T4 + " 0000:1a:00.0 Unhealthy -> Healthy",
                        "INFO DRA: " + T4 + ": device 0000:1a:00.0 (pci-0000-1a-00-0) is Healthy again",
                        "send health [pci-0000-1a-00-0 HEALTHY @5s, pci-0000-1b-00-0 HEALTHY @0s, pci-0000-b1-00-0 HEALTHY @0s, " + B2 + "]",
                        "sync slices " + POOL + " above gen 2 owned by node-uid"),
                row("where the API server drops taints, a device turning unhealthy asks again, and leaves the slices until it keeps them",
                        PUBLISHED_UNTAINTED, at(2000, target(T4_1A_DOWN)), "tell health " + T4 + " 0000:1a:00.0 Healthy -> Unhealthy",
                        "WARN DRA: " + T4 + ": device 0000:1a:00.0 (pci-0000-1a-00-0) is now Unhealthy: /dev/vfio/24 disappeared",
                        "send health [pci-0000-1a-00-0 UNHEALTHY @2s (/dev/vfio/24 disappeared), pci-0000-1b-00-0 HEALTHY @0s, "
                                + "pci-0000-b1-00-0 HEALTHY @0s, " + B2 + "]",
                        "probe taints vfio-device-plugin.io/unhealthy=dev-vfio-24-disappeared:NoSchedule"),
                row("and is published without it when the answer is the same", plus(PUBLISHED_UNTAINTED, at(2000, target(T4_1A_DOWN))),
                        at(2000, taintsDropped()), "sync slices [[pci-0000-1b-00-0, pci-0000-b1-00-0]] above gen 1 owned by node-uid"),
                row("devices that come and go are not told as health changes", PUBLISHED,
                        at(3000, target(DraSlicesTest.without(NODE, "0000:1a:00.0"))),
                        "send health [pci-0000-1b-00-0 HEALTHY @0s, pci-0000-b1-00-0 HEALTHY @0s, " + B2 + "]",
                        "sync slices [[pci-0000-1b-00-0, pci-0000-b1-00-0, " + TAINTED_B2 + "]] above gen 1 owned by node-uid"),

                // Taints, where the API server keeps them and where it drops them (feature DRADeviceTaints)
                row("where the API server keeps taints, the pool is published with the unhealthy device tainted",
                        plus(SERVING, at(0, target(NODE))), at(0, taintsKept()), "sync slices " + POOL + " above gen 0"),
                row("where it drops them, that is said once and the unhealthy device is left out", plus(SERVING, at(0, target(NODE))),
                        at(0, taintsDropped()), DROPPED, "sync slices " + HEALTHY_THREE + " above gen 0"),
                row("a question about taints that gets no answer is said, and the unhealthy device left out meanwhile",
                        plus(SERVING, at(0, target(NODE))), at(0, probeFailed("cannot ask the API server whether it keeps device taints: HTTP 503")),
                        "WARN DRA: cannot ask the API server whether it keeps device taints: HTTP 503; unhealthy devices stay out of the"
                                + " ResourceSlices of pool node-a until it answers (asked again at the next resync)",
                        "sync slices " + HEALTHY_THREE + " above gen 0"),
                row("while it drops them, the resync period asks again", PUBLISHED_UNTAINTED, at(30_000, resync()), PROBE),
                row("the same answer again is not said again", plus(PUBLISHED_UNTAINTED, at(30_000, resync())), at(30_000, taintsDropped()),
                        "sync slices " + HEALTHY_THREE + " above gen 1 owned by node-uid"),
                row("taints kept again are said, and the unhealthy device goes back in, tainted", plus(PUBLISHED_UNTAINTED, at(30_000, resync())),
                        at(30_000, taintsKept()), "INFO DRA: the API server keeps device taints again: unhealthy devices go back into the"
                                + " ResourceSlices of pool node-a, tainted vfio-device-plugin.io/unhealthy:NoSchedule",
                        "sync slices " + POOL + " above gen 1 owned by node-uid"),
                row("a write that comes back without its taints is said, and the unhealthy device taken out at once", APPLIED,
                        at(0, writtenWithoutTaints(1, 1, 4)), "INFO DRA: published 4 device(s) of pool node-a in 1 ResourceSlice(s), generation 1",
                        DROPPED, "sync slices " + HEALTHY_THREE + " above gen 1 owned by node-uid"),
                row("where taints are kept, the resync period asks nothing about them", PUBLISHED, at(30_000, resync()),
                        "sync slices " + POOL + " above gen 1 owned by node-uid"),

                // The heartbeat
                row("the heartbeat repeats the list last sent", PUBLISHED, at(10_000, heartbeat()), HEALTH),

                // The slices
                row("a sync that wrote the slices is logged with the pool's generation", APPLIED, at(0, written(1, 1, 4)),
                        "INFO DRA: published 4 device(s) of pool node-a in 1 ResourceSlice(s), generation 1"),
                row("a sync that found the slices as they should be logs nothing", APPLIED, at(0, upToDate(4, 1, 3))),
                row("a sync asked for while one runs goes after it", APPLIED, at(5, accepted()),
                        "INFO DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)"),
                row("and is sent when the running one is done, above the generation it left", plus(APPLIED, at(5, accepted())),
                        at(10, upToDate(4, 1, 4)), "sync slices " + POOL + " above gen 4"),
                row("a new layout while a sync runs is sent after it", plus(APPLIED, at(5, target(DraSlicesTest.without(NODE, "0000:1a:00.0")))),
                        at(10, written(1, 1, 4)), "INFO DRA: published 4 device(s) of pool node-a in 1 ResourceSlice(s), generation 1",
                        "sync slices [[pci-0000-1b-00-0, pci-0000-b1-00-0, " + TAINTED_B2 + "]] above gen 1 owned by node-uid"),
                row("a failed sync is logged and retried after the first backoff", APPLIED,
                        at(0, syncFailed("cannot write the ResourceSlices of pool node-a (HTTP 403): forbidden", 0)),
                        "WARN DRA: cannot write the ResourceSlices of pool node-a (HTTP 403): forbidden; retrying (backoff up to 1000 ms)",
                        "wake at 200 ms"),
                row("a sweep before the retry is due only keeps the wake-up", SYNC_FAILED, at(100, sweep()), "wake at 200 ms"),
                row("the retry is sent when due", SYNC_FAILED, at(200, sweep()), "sync slices " + POOL + " above gen 0"),
                row("a sync asked for before the retry is due goes at once", SYNC_FAILED, at(50, accepted()),
                        "INFO DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)",
                        "sync slices " + POOL + " above gen 0"),
                row("a sync failing again with the same problem is not logged again", plus(SYNC_FAILED, at(200, sweep())),
                        at(200, syncFailed("cannot write the ResourceSlices of pool node-a (HTTP 403): forbidden", 0)), "wake at 600 ms"),
                row("a sync that works after a failure says so", plus(SYNC_FAILED, at(200, sweep())), at(200, written(1, 1, 3)),
                        "INFO DRA: published 3 device(s) of pool node-a in 1 ResourceSlice(s), generation 1",
                        "INFO DRA: ResourceSlices of pool node-a are written again"),

                // Close
                row("close stops the registration, then the DRA service", PUBLISHED, at(10, close()), "stop registration gen 2",
                        "stop service gen 1"),
                row("close stops a server still starting", List.of(at(0, sweep())), at(10, close()), "stop service gen 1"),
                row("after close a sweep does nothing", plus(PUBLISHED, at(10, close())), at(20, sweep(SERVICE))),
                row("after close a node state does nothing", plus(SERVING, at(10, close())), at(20, target(NODE))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transitions")
    void transition(String behaviour, List<At> given, At when, List<String> expected) {
        DriverScript script = new DriverScript();
        script.feedAll(given);

        assertThat(script.feed(when)).containsExactlyElementsOf(expected);
    }

    /** Failures in a row → the wait before the next attempt: 200 ms doubling, capped at 1 s. */
    static Stream<Arguments> backoffs() {
        return Stream.of(Arguments.of(1, 200), Arguments.of(2, 400), Arguments.of(3, 800), Arguments.of(4, 1000), Arguments.of(8, 1000));
    }

    @ParameterizedTest(name = "start failure {0} waits {1} ms")
    @MethodSource("backoffs")
    void startBackoffGrowsAndIsCapped(int failures, long waitMs) {
        DriverScript script = new DriverScript();
        script.feed(at(0, sweep()));
        long now = 0;
        for (int i = 1; i < failures; i++) {
            script.feed(at(now, failed(SERVICE, i, BLOCKED)));
            now += DriverScript.SETTINGS.backoff().delayAfter(i).toMillis();
            assertThat(script.feed(at(now, sweep()))).as("retry %d", i).containsExactly("start service gen " + (i + 1));
        }

        assertThat(script.feed(at(now, failed(SERVICE, failures, BLOCKED)))).last().isEqualTo("wake at " + (now + waitMs) + " ms");
    }

    @Test
    void statusCountsTheDevicesOfEachResourceAndTheHealthyOnes() {
        DriverScript script = new DriverScript();
        script.feedAll(plus(PUBLISHED, at(10, accepted())));

        assertThat(script.state().status(DraNodes.DRIVER, 0)).isEqualTo(new DraStatus(DraNodes.DRIVER, true, Optional.of(true),
                List.of(new DraStatus.Resource(ResourceName.of(T4), 4, 3)), 0, 1, Optional.empty()));
    }

    @Test
    void statusShowsTheSliceProblemUntilASyncWorks() {
        DriverScript script = new DriverScript();
        script.feedAll(SYNC_FAILED);

        assertThat(script.state().status(DraNodes.DRIVER, 0).sliceProblem())
                .contains("cannot write the ResourceSlices of pool node-a (HTTP 403): forbidden");
        script.feedAll(List.of(at(200, sweep()), at(200, written(1, 1, 3))));
        assertThat(script.state().status(DraNodes.DRIVER, 0).sliceProblem()).isEmpty();
        assertThat(script.state().status(DraNodes.DRIVER, 0).generation()).isEqualTo(1);
    }

    @Test
    void statusIsNotServingWhileTheRegistrationSocketIsDown() {
        DriverScript script = new DriverScript();
        script.feedAll(plus(SERVING, at(10, sweep(REGISTRATION))));

        assertThat(script.state().status(DraNodes.DRIVER, 0).serving()).isFalse();
    }

    static Arguments row(String behaviour, List<At> given, At when, String... expected) {
        return Arguments.of(behaviour, given, when, List.of(expected));
    }

    static List<At> plus(List<At> given, At... more) {
        List<At> all = new ArrayList<>(given);
        all.addAll(List.of(more));
        return List.copyOf(all);
    }
}
