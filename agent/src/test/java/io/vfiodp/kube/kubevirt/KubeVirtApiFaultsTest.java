package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.kube.FlakyApiFront.Fault;
import io.vfiodp.kube.FlakyApiFront;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.PermittedHostDevices;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.ServedPlugins;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KubeVirt CR is the policy; the API server in front of it goes away, flaps and answers
 * garbage. Serving goes on with the last good policy (the resources stay registered, their
 * streams open and their device lists unchanged, and nothing the local policy would serve
 * appears), and a CR changed meanwhile is applied once the API answers again. The plugin is wired
 * as {@code serve --kubevirt auto} wires it, rescanning every 200 ms so that the policy is asked
 * again and again while the API misbehaves.
 */
class KubeVirtApiFaultsTest {

    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String NODE = "gpu-node-1";
    private static final String CR_T4 = "nvidia.com/T4";
    private static final String DEFAULT_T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String NVME = "intel.com/NVME";
    private static final List<String> T4S = List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");

    private static PciIds pciIds;

    @TempDir Path dir;
    private MockKubeApi api;
    private FlakyApiFront front;
    private KubernetesClient pluginClient;
    private KubeletSimulator kubelet;
    private KubeVirtPolicyFollower follower;
    private ServedPlugins runtime;

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
        if (front != null) front.close();
        if (api != null) api.close();
    }

    private void startApiWithCr(String permittedYaml) {
        api = MockKubeApi.start().withKubeVirtCrd();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        if (permittedYaml != null) KubeVirtCrs.create(api.client(), permittedYaml);
        front = new FlakyApiFront(api.port());
    }

    private void startPlugin(Duration firstReadingWait) throws Exception {
        kubelet = KubeletSimulator.start(dir);
        pluginClient = MockKubeApi.clientFor(front.port());
        follower = KubeVirtPolicyFollower.start(pluginClient, Optional.of(NODE), Optional.empty(),
                readable -> { }, firstReadingWait, KubeVirtConfigWatcherTest.FAST);
        ScanPolicySource source = new ScanPolicySource(new SysfsScanner(T4_NUMA.resolve("sys"), T4_NUMA.resolve("dev"))::scan,
                follower.configs(), vendors -> pciIds, Optional.of(follower.problems()::report));
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofMillis(200), source);
        follower.attach(runtime::rescanNow);
    }

    private static String pci(String... selectorAndName) {
        StringBuilder b = new StringBuilder("pciHostDevices:\n");
        for (int i = 0; i < selectorAndName.length; i += 2) {
            b.append("- pciVendorSelector: \"").append(selectorAndName[i]).append("\"\n  resourceName: ").append(selectorAndName[i + 1])
                    .append("\n  externalResourceProvider: true\n");
        }
        return b.toString();
    }

    private void editCr(String permittedYaml) {
        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").edit(kv -> {
            kv.getSpec().getConfiguration().setPermittedHostDevices(Serialization.unmarshal(permittedYaml, PermittedHostDevices.class));
            return kv;
        });
    }

    private static List<String> ids(ListAndWatchResponse r) {
        return r.getDevicesList().stream().map(Device::getID).sorted().toList();
    }

    private Watch awaitListed(String resource, List<String> expected) throws Exception {
        kubelet.awaitRegistrations(List.of(resource), 1, WAIT);
        Watch w = kubelet.watch(resource);
        w.awaitUpdate(u -> ids(u).equals(expected.stream().sorted().toList()), WAIT);
        return w;
    }

    private List<String> registered() {
        return kubelet.registrations().stream().map(KubeletSimulator.Registration::resourceName).toList();
    }

    /** The CR's resource is served as it was: registered once, its stream open with its first list only; nothing else registered. */
    private void assertStillServed(Watch t4, String during) {
        assertThat(registered()).as("registrations during %s", during).containsExactly(CR_T4);
        assertUnchanged(t4, during);
    }

    private void assertUnchanged(Watch t4, String during) {
        assertThat(registered().stream().filter(CR_T4::equals)).as("registrations of %s after %s", CR_T4, during).hasSize(1);
        assertThat(t4.end()).as("stream end after %s", during).isEmpty();
        assertThat(t4.updates()).as("updates after %s", during).hasSize(1);
        assertThat(ids(t4.updates().getFirst())).isEqualTo(T4S);
    }

    @Test
    void flappingApiKeepsTheCrServedAndTheChangeMadeMeanwhileIsAppliedWhenItStaysUp() throws Exception {
        startApiWithCr(pci("10DE:1EB8", CR_T4));
        startPlugin(Duration.ofSeconds(30));
        Watch t4 = awaitListed(CR_T4, T4S);
        long t0 = System.nanoTime();
        // ten outages, each lived through by the client (it tried and was reset) and each ended by its coming back
        for (int i = 0; i < 10; i++) {
            front.set(Fault.DOWN);
            front.awaitFaulted(1);
            front.set(Fault.NONE);
            front.awaitForwarded(1);
        }
        assertStillServed(t4, "flapping");
        front.set(Fault.DOWN);
        editCr(pci("10DE:1EB8", CR_T4, "8086:0A54", NVME));
        front.awaitFaulted(3);
        assertStillServed(t4, "the last outage");

        front.set(Fault.NONE);
        awaitListed(NVME, List.of("0000:5e:00.0"));
        System.out.printf("API flapping: change applied %d ms after the flapping began%n", (System.nanoTime() - t0) / 1_000_000);
        assertUnchanged(t4, "recovery");
    }

    @Test
    void garbageFromTheApiKeepsTheCrServedAndAChangedCrIsAppliedWhenItAnswersAgain() throws Exception {
        startApiWithCr(pci("10DE:1EB8", CR_T4));
        startPlugin(Duration.ofSeconds(30));
        Watch t4 = awaitListed(CR_T4, T4S);

        for (Fault fault : List.of(Fault.GARBAGE_JSON, Fault.GARBAGE_BYTES, Fault.SERVER_ERROR, Fault.NOT_FOUND_PAGE)) {
            // The client retries a broken watch by itself; garbage reaches its list only after a watch expired.
            front.set(fault);
            front.awaitFaulted(2);
            assertStillServed(t4, "every answer " + fault);
            front.expireWatchesAndAnswerListsWith(fault);
            front.awaitFaulted(2);
            assertStillServed(t4, "lists answered " + fault + " after the watch expired");
        }
        editCr(pci("10DE:1EB8", CR_T4, "8086:0A54", NVME));

        front.set(Fault.NONE);
        awaitListed(NVME, List.of("0000:5e:00.0"));
        assertUnchanged(t4, "recovery");
    }

    @Test
    void garbageAtStartServesTheLocalPolicyUntilTheApiAnswersWithTheCr() throws Exception {
        startApiWithCr(pci("10DE:1EB8", CR_T4));
        front.set(Fault.GARBAGE_JSON);
        startPlugin(Duration.ofMillis(300));
        Watch defaults = awaitListed(DEFAULT_T4, T4S);

        front.set(Fault.NONE);

        awaitListed(CR_T4, T4S);
        assertThat(defaults.awaitEnd(WAIT).isOk()).isTrue();
        assertThat(defaults.updates().getLast().getDevicesCount()).isZero();
    }
}
