package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.Devices.withCompanions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.NUMANode;
import io.vfiodp.proto.deviceplugin.v1beta1.TopologyInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime against the kubelet simulator over real unix sockets, with hand-built states. */
class PluginRuntimeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String A100 = "nvidia.com/GA100_A100_PCIE_40GB";
    private static final ExposedDevice T4_A = withCompanions(pci("0000:3b:00.0", 12, 0), "0000:3b:00.1");
    private static final ExposedDevice T4_B = pci("0000:af:00.0", 87, 1);
    private static final ExposedDevice A100_A = pci("0000:86:00.0", 60, -1);
    private static final TargetState NODE = state(resource(T4, T4_A, T4_B), resource(A100, A100_A));

    @TempDir Path dir;
    private Set<Thread> threadsBefore;
    private final AtomicReference<TargetState> hostState = new AtomicReference<>(NODE);
    private KubeletSimulator kubelet;
    private ServedPlugins runtime;

    @BeforeEach
    void start() throws Exception {
        threadsBefore = Leaks.liveThreads();
        kubelet = KubeletSimulator.start(dir);
    }

    @AfterEach
    void stop() {
        if (runtime != null) runtime.close();
        if (kubelet != null) kubelet.close();
    }

    private ServedPlugins startPlugin() throws Exception {
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), hostState::get);
        return runtime;
    }

    private static Device device(String id, String health, int numa) {
        Device.Builder d = Device.newBuilder().setID(id).setHealth(health);
        if (numa >= 0) d.setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(numa)));
        return d.build();
    }

    @Test
    void registersEveryResourceWithVersionSocketEndpointAndOptions() throws Exception {
        startPlugin();

        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);

        assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::resourceName, KubeletSimulator.Registration::endpoint)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(T4, "vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock"),
                        org.assertj.core.groups.Tuple.tuple(A100, "vfio-dp-nvidia.com_GA100_A100_PCIE_40GB.sock"));
        assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::options).containsOnly(
                DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build());
        assertThat(kubelet.rejections()).isEmpty();
    }

    @Test
    void aTaskForThePassThreadRunsOnTheRescanThread() throws Exception {
        startPlugin();
        CompletableFuture<String> ranOn = new CompletableFuture<>();

        runtime.onPassThread(() -> ranOn.complete(Thread.currentThread().getName()));

        assertThat(ranOn.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(io.vfiodp.node.NodeLoop.PASS_THREAD);
    }

    @Test
    void listAndWatchSendsEveryDeviceWithHealthAndNumaTopology() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);

        ListAndWatchResponse t4 = kubelet.watch(T4).awaitUpdate(u -> true, WAIT);
        ListAndWatchResponse a100 = kubelet.watch(A100).awaitUpdate(u -> true, WAIT);

        assertThat(t4.getDevicesList()).containsExactly(device("0000:3b:00.0", "Healthy", 0), device("0000:af:00.0", "Healthy", 1));
        assertThat(a100.getDevicesList()).containsExactly(device("0000:86:00.0", "Healthy", -1));
    }

    @Test
    void allocateOverTheSocketAnswersTheKubeVirtContract() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);

        ContainerAllocateResponse c = kubelet.allocate(T4, List.of(List.of("0000:af:00.0", "0000:3b:00.0"))).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnly(
                Map.entry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:af:00.0,0000:3b:00.0"),
                Map.entry("VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4", "0000:af:00.0=,0000:3b:00.0=0000:3b:00.1"));
        assertThat(c.getDevicesList()).extracting(d -> d.getHostPath() + " " + d.getContainerPath() + " " + d.getPermissions())
                .containsExactly("/dev/vfio/vfio /dev/vfio/vfio mrw", "/dev/vfio/87 /dev/vfio/87 mrw", "/dev/vfio/12 /dev/vfio/12 mrw");
    }

    @Test
    void everyGrantedContainerGetsItsLogLineOnceTheAnswerIsOut() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            kubelet.allocate(T4, List.of(List.of("0000:af:00.0"), List.of("0000:3b:00.0")));
            assertRefused(() -> kubelet.allocate(T4, List.of(List.of("0000:99:00.0"))), Status.Code.INVALID_ARGUMENT, "unknown");

            // The lines follow the answer (the transport thread writes them once the call closed): wait for them.
            await().atMost(WAIT).untilAsserted(() -> assertThat(allocatedLines(err)).hasSize(2));
            assertThat(allocatedLines(err)).containsExactly(T4 + ": allocated 0000:af:00.0", T4 + ": allocated 0000:3b:00.0");
        } finally {
            System.setErr(original);
        }
    }

    /** The messages of the INFO lines naming an allocation, without their date and level. */
    private static List<String> allocatedLines(ByteArrayOutputStream err) {
        return err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(": allocated "))
                .map(l -> l.substring(l.indexOf(" INFO ") + " INFO ".length())).toList();
    }

    @Test
    void preferredAllocationOverTheSocketKeepsToOneNumaNode() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);

        assertThat(kubelet.preferredAllocation(T4, List.of("0000:af:00.0", "0000:3b:00.0"), List.of("0000:af:00.0"), 1))
                .containsExactly("0000:af:00.0");
    }

    @Test
    void badAllocateRequestsAreRefusedNamingTheIdAndTheServerKeepsServing() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);

        assertRefused(() -> kubelet.allocate(T4, List.of(List.of("0000:99:00.0"))), Status.Code.INVALID_ARGUMENT, "0000:99:00.0 is unknown");
        assertRefused(() -> kubelet.allocate(T4, List.of(List.of("0000:86:00.0"))), Status.Code.INVALID_ARGUMENT,
                "0000:86:00.0 belongs to resource " + A100);
        assertRefused(() -> kubelet.allocate(T4, List.of(List.of("0000:3b:00.0", "0000:3b:00.0"))), Status.Code.INVALID_ARGUMENT,
                "0000:3b:00.0 is requested twice");
        assertRefused(() -> kubelet.allocate(T4, List.of(List.of())), Status.Code.INVALID_ARGUMENT, "lists no device IDs");

        assertThat(kubelet.allocate(T4, List.of(List.of("0000:3b:00.0"))).getContainerResponses(0).getEnvsMap())
                .containsEntry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0");
    }

    @Test
    void unhealthyDeviceIsRefusedWithFailedPrecondition() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        hostState.set(Devices.unhealthy(NODE, Set.of("0000:af:00.0"), "/dev/vfio/87 disappeared"));
        runtime.rescanNow();
        kubelet.watch(T4).awaitUpdate(u -> u.getDevices(1).getHealth().equals("Unhealthy"), WAIT);

        assertRefused(() -> kubelet.allocate(T4, List.of(List.of("0000:af:00.0"))), Status.Code.FAILED_PRECONDITION,
                "device 0000:af:00.0 is unhealthy: /dev/vfio/87 disappeared");
    }

    private static void assertRefused(Runnable call, Status.Code code, String messagePart) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(messagePart);
        });
    }

    @Test
    void healthChangesFromRescansPushUnhealthyAndHealthyAgain() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        Watch watch = kubelet.watch(T4);
        watch.awaitUpdates(1, WAIT);

        hostState.set(Devices.unhealthy(NODE, Set.of("0000:3b:00.0"), "unbound from vfio-pci"));
        runtime.rescanNow();
        // rescans that overlap coalesce: the second state must not replace the first before it was read
        watch.awaitUpdates(2, WAIT);
        hostState.set(NODE);
        runtime.rescanNow();
        watch.awaitUpdates(3, WAIT);

        assertThat(watch.updates()).extracting(u -> u.getDevices(0).getHealth()).containsExactly("Healthy", "Unhealthy", "Healthy");
    }

    @Test
    void rescanThatChangesNothingPushesNoUpdateButAChangeDoes() throws Exception {
        startPlugin();
        // both streams must have their first list before the rescans: under load A100's came late
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);
        Watch watch = kubelet.watch(T4);
        watch.awaitUpdates(1, WAIT);
        kubelet.watch(A100).awaitUpdates(1, WAIT);

        hostState.set(state(resource(T4, T4_A, T4_B), resource(A100, A100_A)));
        runtime.rescanNow();
        hostState.set(state(resource(T4, T4_A), resource(A100, A100_A)));
        runtime.rescanNow();
        watch.awaitUpdate(u -> u.getDevicesCount() == 1, WAIT);

        assertThat(watch.updates()).extracting(ListAndWatchResponse::getDevicesCount).containsExactly(2, 1);
        assertThat(kubelet.watch(A100).updates()).hasSize(1);
    }

    @Test
    void newResourceFromARescanIsServedAndRegistered() throws Exception {
        hostState.set(state(resource(T4, T4_A, T4_B)));
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);

        hostState.set(NODE);
        runtime.rescanNow();

        kubelet.awaitRegistrations(List.of(A100), 1, WAIT);
        assertThat(kubelet.watch(A100).awaitUpdate(u -> true, WAIT).getDevicesCount()).isEqualTo(1);
    }

    @Test
    void resourceDroppedByARescanGetsAFinalEmptyListAndItsSocketRemoved() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);
        Watch watch = kubelet.watch(A100);
        watch.awaitUpdates(1, WAIT);

        hostState.set(state(resource(T4, T4_A, T4_B)));
        runtime.rescanNow();

        assertThat(watch.awaitEnd(WAIT).isOk()).isTrue();
        assertThat(watch.updates().getLast().getDevicesCount()).isZero();
        // the kubelet takes the empty list literally: nothing of A100 is left to allocate or count
        assertThat(kubelet.resource(A100).map(r -> r.capacity() + "/" + r.allocatable())).contains("0/0");
        List<String> expected = List.of("kubelet.sock", "vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock");
        Leaks.awaitSockets(dir, expected, WAIT);
    }

    /**
     * The safety check that backs up the directory watch does not run in the test's time: every
     * re-registration comes from noticing the kubelet's new socket, however loaded the machine. How
     * fast it comes is ServeBench's figure.
     */
    @Test
    void fiveKubeletRestartsInARowEachReRegisterEveryResource() throws Exception {
        runtime = ServedPlugins.start(new PluginSettings(dir, Duration.ofHours(1), PluginSettings.DEFAULT_REGISTRATION_TIMEOUT,
                PluginSettings.DEFAULT_BACKOFF), Duration.ofHours(1), hostState::get);
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);

        for (int round = 2; round <= 6; round++) {
            kubelet.restart();
            kubelet.awaitRegistrations(List.of(T4, A100), round, WAIT);
            assertThat(kubelet.watch(T4).awaitUpdate(u -> u.getDevicesCount() == 2, WAIT).getDevicesCount()).isEqualTo(2);
        }
        assertThat(kubelet.allocate(A100, List.of(List.of("0000:86:00.0"))).getContainerResponsesCount()).isEqualTo(1);
        assertThat(kubelet.registrations()).as("one registration per resource per kubelet start").hasSize(12);
        assertThat(Leaks.sockets(dir)).containsExactly("kubelet.sock", "vfio-dp-nvidia.com_GA100_A100_PCIE_40GB.sock",
                "vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock");
    }

    @Test
    void socketDeletedByHandIsRecreatedAndRegisteredAgain() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);

        Files.delete(dir.resolve("vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock"));

        kubelet.awaitRegistrations(List.of(T4), 2, WAIT);
        assertThat(dir.resolve("vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock")).exists();
        assertThat(kubelet.allocate(T4, List.of(List.of("0000:3b:00.0"))).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void registrationIsRetriedUntilTheKubeletAppears() throws Exception {
        kubelet.close();
        kubelet = null;
        startPlugin();
        // The kubelet comes only once the plugin has settled without it: every server up, none registered.
        await("every resource served, waiting for the kubelet").atMost(WAIT).untilAsserted(() -> assertThat(statuses())
                .extracting(s -> s.name().value() + (s.serving() ? " serving" : " not serving") + (s.registered() ? " registered" : ""))
                .containsExactly(A100 + " serving", T4 + " serving"));

        kubelet = KubeletSimulator.start(dir);

        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);
    }

    @Test
    void severalConcurrentListAndWatchStreamsAllGetEveryUpdate() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        kubelet.watch(T4).awaitUpdates(1, WAIT);
        List<Watch> watches = new ArrayList<>();
        for (int i = 0; i < 4; i++) watches.add(kubelet.openWatch(T4));
        for (Watch w : watches) w.awaitUpdates(1, WAIT);

        hostState.set(Devices.unhealthy(NODE, Set.of("0000:af:00.0"), "gone"));
        runtime.rescanNow();

        for (Watch w : watches) {
            assertThat(w.awaitUpdate(u -> u.getDevices(1).getHealth().equals("Unhealthy"), WAIT).getDevicesCount()).isEqualTo(2);
            assertThat(w.updates()).hasSize(2);
        }
        assertThat(openStreams(T4)).isEqualTo(5);
        watches.forEach(Watch::close);
    }

    @Test
    void streamCancelledByTheKubeletIsForgotten() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        // the kubelet's own stream is open once it has its first list; under load it opened after the extra one
        kubelet.watch(T4).awaitUpdates(1, WAIT);
        Watch extra = kubelet.openWatch(T4);
        extra.awaitUpdates(1, WAIT);
        assertThat(openStreams(T4)).isEqualTo(2);

        extra.close();

        await("the cancelled stream forgotten").atMost(WAIT).untilAsserted(() -> assertThat(openStreams(T4)).as("open streams of " + T4).isEqualTo(1));
        assertThat(extra.awaitEnd(WAIT).getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    private int openStreams(String resource) throws Exception {
        return statuses().stream().filter(s -> s.name().equals(ResourceName.of(resource))).findFirst().orElseThrow().openStreams();
    }

    private List<ResourceStatus> statuses() throws Exception {
        return runtime.loop().status().get(30, TimeUnit.SECONDS);
    }

    @Test
    void closeEndsTheStreamsWithoutAnEmptyListRemovesOurSocketsAndLeavesNoThread() throws Exception {
        startPlugin();
        kubelet.awaitRegistrations(List.of(T4, A100), 1, WAIT);
        Watch watch = kubelet.watch(T4);
        watch.awaitUpdates(1, WAIT);

        runtime.close();
        assertThat(watch.awaitEnd(WAIT).isOk()).isTrue();
        // the stream ended: the kubelet keeps T4's capacity, nothing allocatable, for its grace
        assertThat(kubelet.resource(T4).map(r -> r.capacity() + "/" + r.allocatable())).contains("2/0");
        kubelet.close();

        assertThat(watch.updates()).extracting(ListAndWatchResponse::getDevicesCount).containsExactly(2);
        assertThat(Leaks.sockets(dir)).isEmpty();
        Leaks.awaitNoThreadStartedSince(threadsBefore, Duration.ofSeconds(30));
    }

    @Test
    void aStateServingDepartedDevicesIsFollowedByAPassOfItsOwnWhenThePeriodicOneIsFurther() throws Exception {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean departing = new java.util.concurrent.atomic.AtomicBoolean();
        io.vfiodp.node.NodeStateSource source = new io.vfiodp.node.NodeStateSource() {
            @Override
            public TargetState read() {
                reads.incrementAndGet();
                return hostState.get();
            }

            @Override
            public boolean wantsAnotherPass() {
                return departing.getAndSet(false);
            }
        };
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), source);
        runtime.keepDepartedFor(Duration.ofMillis(100));
        int before = reads.get();

        departing.set(true);
        runtime.rescanNow();

        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> reads.get() >= before + 2);
        assertThatThrownBy(() -> runtime.keepDepartedFor(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("departed devices kept for a non-positive time: PT0S");
    }
}
