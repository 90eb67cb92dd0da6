package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.kube.ConfigProblemReporter;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.TcpProxy;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.PermittedHostDevices;
import io.vfiodp.metrics.MetricsTestSupport;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.ServedPlugins;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.plugin.SocketNames;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --kubevirt auto} end to end: the mock API server (real watches), the KubeVirt
 * follower, the real scan and policy on a fixture node, the plugin runtime, and the kubelet
 * simulator over unix sockets. Wired as {@code ServeCommand} wires it; each test edits the CR
 * and asserts what the kubelet sees.
 */
class KubeVirtLiveReconcileTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration QUIET = Duration.ofMillis(1500);
    private static final String NODE = "gpu-node-1";
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final List<String> T4S = List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");
    private static final List<String> GRID_1Q = List.of("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30",
            "c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59");
    private static final List<String> GRID_2Q = List.of("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64");

    private static PciIds pciIds;

    @TempDir Path dir;
    private MockKubeApi api;
    private KubernetesClient pluginClient;
    private KubeletSimulator kubelet;
    private KubeVirtPolicyFollower follower;
    private ServedPlugins runtime;
    private final PrometheusRegistry registry = new PrometheusRegistry();

    @BeforeAll
    static void loadPciIds() throws Exception {
        pciIds = PciIds.bundled();
    }

    @AfterEach
    void tearDown() {
        if (runtime != null) runtime.close();
        if (follower != null) follower.close();
        if (pluginClient != null) pluginClient.close();
        if (kubelet != null) kubelet.close();
        if (api != null) api.close();
    }

    private void startApi() {
        api = MockKubeApi.start().withKubeVirtCrd();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    }

    /** Starts the plugin on {@code fixture} against the API on {@code port}, the way ServeCommand does without --config. */
    private void startPlugin(String fixture, int port, Duration firstReadingWait) throws Exception {
        Path node = FIXTURES.resolve(fixture);
        kubelet = KubeletSimulator.start(dir);
        pluginClient = MockKubeApi.clientFor(port);
        ServingMetrics metrics = new ServingMetrics(registry, "test", Clock.systemUTC());
        follower = KubeVirtPolicyFollower.start(pluginClient, Optional.of(NODE), Optional.empty(), metrics::kubevirtCrReadable,
                firstReadingWait, KubeVirtConfigWatcherTest.FAST);
        // reported and counted, as serve wires them
        ScanPolicySource.ProblemSink problems = (origin, found) -> {
            follower.problems().report(origin, found);
            metrics.configEntryErrors(found);
        };
        ScanPolicySource source = new ScanPolicySource(new SysfsScanner(node.resolve("sys"), node.resolve("dev"))::scan,
                follower.configs(), vendors -> pciIds, Optional.of(problems));
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), source);
        follower.attach(runtime::rescanNow);
    }

    private void startPlugin(String fixture) throws Exception {
        startPlugin(fixture, api.port(), Duration.ofSeconds(30));
    }

    private void createCr(String namespace, String name, String permittedYaml) {
        api.client().resource(KubeVirtCrs.cr(namespace, name, permittedYaml)).create();
    }

    private void editCr(String permittedYaml) {
        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").edit(kv -> {
            kv.getSpec().getConfiguration().setPermittedHostDevices(Serialization.unmarshal(permittedYaml, PermittedHostDevices.class));
            return kv;
        });
    }

    private static String pci(String... selectorAndName) {
        StringBuilder b = new StringBuilder("pciHostDevices:\n");
        for (int i = 0; i < selectorAndName.length; i += 2) {
            b.append("- pciVendorSelector: \"").append(selectorAndName[i]).append("\"\n  resourceName: ").append(selectorAndName[i + 1])
                    .append("\n  externalResourceProvider: true\n");
        }
        return b.toString();
    }

    private static String mdev(String... selectorAndName) {
        StringBuilder b = new StringBuilder("mediatedDevices:\n");
        for (int i = 0; i < selectorAndName.length; i += 2) {
            b.append("- mdevNameSelector: \"").append(selectorAndName[i]).append("\"\n  resourceName: ").append(selectorAndName[i + 1])
                    .append("\n  externalResourceProvider: true\n");
        }
        return b.toString();
    }

    private static List<String> ids(ListAndWatchResponse r) {
        return r.getDevicesList().stream().map(Device::getID).sorted().toList();
    }

    private static List<String> sorted(List<String> l) {
        return l.stream().sorted().toList();
    }

    private long registrationsOf(String resource) {
        return kubelet.registrations().stream().filter(r -> r.resourceName().equals(resource)).count();
    }

    private List<String> registeredNames() {
        return kubelet.registrations().stream().map(KubeletSimulator.Registration::resourceName).distinct().sorted().toList();
    }

    /** Waits until {@code resource} is registered and its stream lists exactly {@code expected}; returns when that was seen. */
    private long awaitListed(String resource, List<String> expected) throws Exception {
        kubelet.awaitRegistrations(List.of(resource), 1, WAIT);
        kubelet.watch(resource).awaitUpdate(u -> ids(u).equals(sorted(expected)), WAIT);
        return System.nanoTime();
    }

    private static void printDelay(String what, long editedAt, long seenAt) {
        System.out.printf("CR edit -> ListAndWatch (%s): %d ms%n", what, (seenAt - editedAt) / 1_000_000);
    }

    @Test
    void crReadAtStartIsServedAndTheDefaultNamesNeverRegister() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", "nvidia.com/T4", "8086:0A54", "intel.com/NVME"));
        startPlugin("t4-numa");

        awaitListed("nvidia.com/T4", T4S);
        awaitListed("intel.com/NVME", List.of("0000:5e:00.0"));
        assertThat(registeredNames()).containsExactly("intel.com/NVME", "nvidia.com/T4");
    }

    @Test
    void addedEntryStartsANewResourceAndLeavesTheOthersAlone() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", T4));
        startPlugin("t4-numa");
        awaitListed(T4, T4S);
        Watch t4 = kubelet.watch(T4);

        long editedAt = System.nanoTime();
        editCr(pci("10DE:1EB8", T4, "8086:0A54", "intel.com/NVME"));
        long seenAt = awaitListed("intel.com/NVME", List.of("0000:5e:00.0"));
        printDelay("new resource registered and listed", editedAt, seenAt);

        holdsFor(QUIET, () -> {
            assertThat(registrationsOf(T4)).isEqualTo(1);
            assertThat(t4.updates()).hasSize(1);
            assertThat(t4.end()).isEmpty();
        });
        assertThat((seenAt - editedAt) / 1_000_000).isLessThan(10_000);
    }

    @Test
    void changedDeviceSetIsPushedOnTheOpenStreamWithoutReRegistering() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", mdev("GRID T4-1Q", "nvidia.com/GRID_T4"));
        startPlugin("t4-vgpu");
        awaitListed("nvidia.com/GRID_T4", GRID_1Q);
        Watch grid = kubelet.watch("nvidia.com/GRID_T4");

        long editedAt = System.nanoTime();
        editCr(mdev("GRID T4-1Q", "nvidia.com/GRID_T4", "GRID T4-2Q", "nvidia.com/GRID_T4"));
        grid.awaitUpdate(u -> u.getDevicesCount() == 5, WAIT);
        long seenAt = System.nanoTime();
        printDelay("device set of a served resource updated", editedAt, seenAt);

        assertThat(ids(grid.latest().orElseThrow())).isEqualTo(sorted(concat(GRID_1Q, GRID_2Q)));
        assertThat(registrationsOf("nvidia.com/GRID_T4")).isEqualTo(1);
        assertThat(grid.updates()).hasSize(2);
        assertThat((seenAt - editedAt) / 1_000_000).isLessThan(10_000);
    }

    @Test
    void removedEntryStopsItsResourceWithAFinalEmptyListAndRemovesItsSocket() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", T4, "8086:0A54", "intel.com/NVME"));
        startPlugin("t4-numa");
        awaitListed("intel.com/NVME", List.of("0000:5e:00.0"));
        awaitListed(T4, T4S);
        Watch nvme = kubelet.watch("intel.com/NVME");
        Watch t4 = kubelet.watch(T4);
        Path nvmeSocket = dir.resolve(SocketNames.forResource(dir, ResourceName.of("intel.com/NVME")));
        assertThat(nvmeSocket).exists();

        editCr(pci("10DE:1EB8", T4));

        assertThat(nvme.awaitEnd(WAIT).isOk()).isTrue();
        assertThat(nvme.updates().getLast().getDevicesCount()).isZero();
        // a configuration change withdraws the resource: the kubelet counts none of its devices at once
        assertThat(kubelet.resource("intel.com/NVME").map(r -> r.capacity() + "/" + r.allocatable())).contains("0/0");
        awaitGone(nvmeSocket);
        assertThat(registrationsOf(T4)).isEqualTo(1);
        assertThat(t4.updates()).hasSize(1);
    }

    @Test
    void renamedResourceMovesItsDevices() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", T4));
        startPlugin("t4-numa");
        awaitListed(T4, T4S);
        Watch old = kubelet.watch(T4);

        editCr(pci("10DE:1EB8", "nvidia.com/T4"));

        awaitListed("nvidia.com/T4", T4S);
        assertThat(old.awaitEnd(WAIT).isOk()).isTrue();
        assertThat(old.updates().getLast().getDevicesCount()).isZero();
        awaitGone(dir.resolve(SocketNames.forResource(dir, ResourceName.of(T4))));
    }

    @Test
    void pciSelectorCaseChangeChangesNothing() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", T4));
        startPlugin("t4-numa");
        awaitListed(T4, T4S);
        Watch t4 = kubelet.watch(T4);

        editCr(pci("10de:1eb8", T4));

        holdsFor(QUIET, () -> {
            assertThat(registrationsOf(T4)).isEqualTo(1);
            assertThat(t4.updates()).hasSize(1);
            assertThat(t4.end()).isEmpty();
        });
    }

    @Test
    void mdevNameWithSpacesOrUnderscoresIsTheSameResource() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", mdev("GRID T4-1Q", "nvidia.com/GRID_T4-1Q"));
        startPlugin("t4-vgpu");
        awaitListed("nvidia.com/GRID_T4-1Q", GRID_1Q);
        Watch grid = kubelet.watch("nvidia.com/GRID_T4-1Q");

        editCr(mdev("GRID_T4-1Q", "nvidia.com/GRID_T4-1Q"));

        holdsFor(QUIET, () -> {
            assertThat(registrationsOf("nvidia.com/GRID_T4-1Q")).isEqualTo(1);
            assertThat(grid.updates()).hasSize(1);
            assertThat(grid.end()).isEmpty();
        });
    }

    @Test
    void deletedCrFallsBackToTheDefaultPolicy() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", "nvidia.com/T4"));
        startPlugin("t4-numa");
        awaitListed("nvidia.com/T4", T4S);
        Watch renamed = kubelet.watch("nvidia.com/T4");

        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").delete();

        awaitListed(T4, T4S);
        assertThat(renamed.awaitEnd(WAIT).isOk()).isTrue();
    }

    @Test
    void invalidEntriesAreSkippedWithAnEventOnTheNodeAndTheValidOnesServed() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", T4, "8086-0A54", "intel.com/NVME", "8086:0A54", "NVME"));
        startPlugin("t4-numa");

        awaitListed(T4, T4S);
        List<Event> events = api.awaitEvents(2);
        assertThat(events).extracting(Event::getReason).containsOnly(ConfigProblemReporter.REASON_INVALID);
        assertThat(events).extracting(e -> e.getInvolvedObject().getName()).containsOnly(NODE);
        assertThat(events).extracting(Event::getMessage).containsExactlyInAnyOrder(
                "KubeVirt CR kubevirt/kubevirt: pciHostDevices[1] (pciVendorSelector '8086-0A54', resourceName 'intel.com/NVME') skipped:"
                        + " pciVendorSelector must be VVVV:DDDD, the vendor and device id in hex (e.g. 10DE:1EB8)",
                "KubeVirt CR kubevirt/kubevirt: pciHostDevices[2] (pciVendorSelector '8086:0A54', resourceName 'NVME') skipped:"
                        + " resource name 'NVME' has no domain prefix: write it as <domain>/<name>, e.g. nvidia.com/NVME");
        assertThat(MetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of(
                "malformed_selector/pciHostDevices[1]", 1.0, "missing_domain/pciHostDevices[2]", 1.0));
        assertThat(registeredNames()).containsExactly(T4);
    }

    @Test
    void firstCreatedOfTwoCrsDecides() throws Exception {
        startApi();
        KubeVirt first = api.client().resource(KubeVirtCrs.cr("kubevirt", "kubevirt", pci("10DE:1EB8", "nvidia.com/FIRST"))).create();
        // creationTimestamp has whole seconds, as on a real API server: the second CR must be created a second later
        Instant firstCreated = Instant.parse(first.getMetadata().getCreationTimestamp());
        await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().truncatedTo(ChronoUnit.SECONDS).isAfter(firstCreated));
        createCr("other", "kubevirt", pci("10DE:1EB8", "nvidia.com/SECOND"));
        startPlugin("t4-numa");

        awaitListed("nvidia.com/FIRST", T4S);
        holdsFor(QUIET, () -> assertThat(registeredNames()).containsExactly("nvidia.com/FIRST"));
    }

    @Test
    void apiUnavailableAtStartServesTheDefaultsUntilTheCrIsRead() throws Exception {
        int port = MockKubeApi.freePort();
        startPlugin("t4-numa", port, Duration.ofMillis(300));
        awaitListed(T4, T4S);
        Watch defaults = kubelet.watch(T4);

        api = MockKubeApi.startOn(port).withKubeVirtCrd();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", "nvidia.com/T4"));

        awaitListed("nvidia.com/T4", T4S);
        assertThat(defaults.awaitEnd(WAIT).isOk()).isTrue();
    }

    /** Allowed to wait far longer for a first reading than the test waits for the listing: served at once, or not at all. */
    @Test
    void unreachableApiDoesNotHoldUpTheStart() throws Exception {
        startPlugin("t4-numa", MockKubeApi.freePort(), Duration.ofMinutes(10));

        awaitListed(T4, T4S);
    }

    @Test
    void apiGoingAwayKeepsEveryResourceServed() throws Exception {
        startApi();
        createCr("kubevirt", "kubevirt", pci("10DE:1EB8", "nvidia.com/T4"));
        try (TcpProxy link = new TcpProxy(api.port())) {
            startPlugin("t4-numa", link.port(), Duration.ofSeconds(30));
            awaitListed("nvidia.com/T4", T4S);
            Watch t4 = kubelet.watch("nvidia.com/T4");

            link.cut();
            runtime.rescanNow();
            link.awaitRefused(2);

            holdsFor(QUIET, () -> {
                assertThat(t4.end()).isEmpty();
                assertThat(t4.updates()).hasSize(1);
                assertThat(registeredNames()).containsExactly("nvidia.com/T4");
            });
        }
    }

    private static void awaitGone(Path socket) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(socket).doesNotExist());
    }

    /** Asserts that {@code what} holds now and all through {@code quiet}: nothing the kubelet sees changes meanwhile. */
    private static void holdsFor(Duration quiet, ThrowingRunnable what) {
        await().during(quiet).atMost(quiet.plusSeconds(5)).untilAsserted(what);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
