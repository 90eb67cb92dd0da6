package io.vfiodp.testkit.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourceResponse;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DRA kubelet simulator registers, refuses and calls a plugin as the kubelet does. */
class DraKubeletSimulatorTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path tmp;
    private Path registry;
    private Path registrationSocket;
    private Path endpoint;
    private FakeDraPlugin plugin;
    private DraKubeletSimulator kubelet;

    @BeforeEach
    void dirs() throws Exception {
        registry = Files.createDirectory(tmp.resolve("plugins_registry"));
        registrationSocket = registry.resolve("fake.example.com-reg.sock");
        endpoint = Files.createDirectories(tmp.resolve("plugins/fake.example.com")).resolve("dra.sock");
    }

    @AfterEach
    void stop() throws Exception {
        if (kubelet != null) kubelet.close();
        if (plugin != null) plugin.close();
    }

    private DraKubeletSimulator.Registered register(List<String> kubeletServices, PluginInfo info) throws Exception {
        plugin = FakeDraPlugin.start(registrationSocket, endpoint, info);
        kubelet = new DraKubeletSimulator(registry, kubeletServices);
        return kubelet.register(registrationSocket);
    }

    private void assertRefused(PluginInfo info, String why) throws Exception {
        plugin = FakeDraPlugin.start(registrationSocket, endpoint, info);
        kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136);

        assertThatThrownBy(() -> kubelet.register(registrationSocket)).isInstanceOf(IllegalStateException.class).hasMessage(why);
        assertThat(plugin.statuses()).containsExactly(RegistrationStatus.newBuilder().setPluginRegistered(false).setError(why).build());
        assertThatThrownBy(kubelet::plugin).hasMessage("no plugin registered");
    }

    @Test
    void thePluginWatcherSeesTheUnixSocketsWhoseNamesDoNotStartWithADot() throws Exception {
        plugin = FakeDraPlugin.start(registrationSocket, endpoint, FakeDraPlugin.info(endpoint, "v1.DRAPlugin"));
        Files.writeString(registry.resolve("not-a-socket.sock"), "");
        try (ServerSocketChannel hidden = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            hidden.bind(UnixDomainSocketAddress.of(registry.resolve(".hidden-reg.sock")));
            kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136);

            assertThat(kubelet.registrationSockets()).containsExactly(registrationSocket);
        }
    }

    @Test
    void aPluginOfTypeDraPluginIsRegisteredAndToldSo() throws Exception {
        DraKubeletSimulator.Registered r = register(DraKubeletSimulator.KUBELET_136, FakeDraPlugin.info(endpoint, "v1.DRAPlugin", "v1beta1.DRAPlugin"));

        assertThat(r.socket()).isEqualTo(registrationSocket);
        assertThat(r.service()).isEqualTo("v1.DRAPlugin");
        assertThat(r.info().getName()).isEqualTo("fake.example.com");
        assertThat(kubelet.plugin()).isEqualTo(r);
        assertThat(plugin.statuses()).containsExactly(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    }

    /** DRAPluginManager.validateSupportedServices walks the plugin's list, not the kubelet's. */
    @Test
    void theServiceIsThePluginsFirstThatTheKubeletKnows() throws Exception {
        DraKubeletSimulator.Registered r = register(DraKubeletSimulator.KUBELET_136,
                FakeDraPlugin.info(endpoint, "v1alpha1.DRAResourceHealth", "v1beta1.DRAPlugin", "v1.DRAPlugin"));

        assertThat(r.service()).isEqualTo("v1beta1.DRAPlugin");
    }

    @Test
    void anOlderKubeletChoosesTheOnlyServiceItKnows() throws Exception {
        assertThat(register(DraKubeletSimulator.KUBELET_133, FakeDraPlugin.info(endpoint, "v1.DRAPlugin", "v1beta1.DRAPlugin")).service())
                .isEqualTo("v1beta1.DRAPlugin");
    }

    @Test
    void aPluginOfAnotherTypeIsRefused() throws Exception {
        assertRefused(FakeDraPlugin.info(endpoint, "v1.DRAPlugin").toBuilder().setType("CSIPlugin").build(), "plugin type CSIPlugin is not DRAPlugin");
    }

    @Test
    void aPluginListingNoServiceIsRefused() throws Exception {
        assertRefused(FakeDraPlugin.info(endpoint), "empty list of supported gRPC services (aka supported versions)");
    }

    @Test
    void aPluginListingNoServiceTheKubeletKnowsIsRefused() throws Exception {
        assertRefused(FakeDraPlugin.info(endpoint, "v1alpha4.Node"),
                "none of services supported by the plugin ([v1alpha4.Node]) are supported by the kubelet ([v1.DRAPlugin, v1beta1.DRAPlugin])");
    }

    @Test
    void aRelativeEndpointIsRefused() throws Exception {
        assertRefused(FakeDraPlugin.info(Path.of("dra.sock"), "v1.DRAPlugin"), "endpoint dra.sock is not an absolute path");
    }

    @Test
    void claimsArePreparedAndUnpreparedThroughTheV1Service() throws Exception {
        register(DraKubeletSimulator.KUBELET_136, FakeDraPlugin.info(endpoint, "v1.DRAPlugin"));

        var prepared = kubelet.prepare(DraKubeletSimulator.claim("vms", "vm-gpu", "uid-1"));
        var unprepared = kubelet.unprepare(DraKubeletSimulator.claim("vms", "vm-gpu", "uid-1"));

        assertThat(prepared.getClaimsMap()).containsOnlyKeys("uid-1");
        assertThat(prepared.getClaimsMap().get("uid-1").getDevicesList()).containsExactly(Device.newBuilder().addRequestNames("gpu")
                .setPoolName("pool").setDeviceName("dev-uid-1").addCdiDeviceIds("fake.example.com/vfio=uid-1").build());
        assertThat(unprepared.getClaimsMap()).containsExactly(java.util.Map.entry("uid-1", NodeUnprepareResourceResponse.getDefaultInstance()));
        assertThat(plugin.calls()).containsExactly("v1.DRAPlugin NodePrepareResources", "v1.DRAPlugin NodeUnprepareResources");
    }

    /** The v1beta1 answers come back as v1 messages, errors included, so a test reads one shape. */
    @Test
    void claimsGoThroughV1beta1WhenThatIsTheChosenService() throws Exception {
        register(DraKubeletSimulator.KUBELET_133, FakeDraPlugin.info(endpoint, "v1beta1.DRAPlugin"));

        var prepared = kubelet.prepare(DraKubeletSimulator.claim("vms", "vm-gpu", "uid-2"));
        var unprepared = kubelet.unprepare(DraKubeletSimulator.claim("vms", "vm-gpu", "uid-2"));

        assertThat(prepared.getClaimsMap()).containsExactly(java.util.Map.entry("uid-2", NodePrepareResourceResponse.newBuilder()
                .addDevices(Device.newBuilder().addRequestNames("gpu").setPoolName("pool").setDeviceName("dev-uid-2")
                        .addCdiDeviceIds("fake.example.com/vfio=uid-2")).build()));
        assertThat(unprepared.getClaimsMap().get("uid-2").getError()).isEqualTo("busy");
        assertThat(plugin.calls()).containsExactly("v1beta1.DRAPlugin NodePrepareResources", "v1beta1.DRAPlugin NodeUnprepareResources");
    }

    @Test
    void aPluginListingTheHealthServiceIsWatched() throws Exception {
        register(DraKubeletSimulator.KUBELET_136, FakeDraPlugin.info(endpoint, "v1.DRAPlugin", "v1alpha1.DRAResourceHealth"));

        await().atMost(WAIT).untilAsserted(() -> assertThat(kubelet.healthUpdates()).singleElement()
                .satisfies(u -> assertThat(u.getDevices(0).getHealth()).isEqualTo(HealthStatus.HEALTHY)));
    }

    @Test
    void aRestartedKubeletKnowsNoPluginUntilItWalksTheDirectoryAgain() throws Exception {
        register(DraKubeletSimulator.KUBELET_136, FakeDraPlugin.info(endpoint, "v1.DRAPlugin"));

        kubelet.restart();

        assertThatThrownBy(kubelet::plugin).hasMessage("no plugin registered");
        assertThat(kubelet.registrationSockets()).containsExactly(registrationSocket);
        assertThat(kubelet.register(registrationSocket).service()).isEqualTo("v1.DRAPlugin");
        assertThat(plugin.statuses()).extracting(RegistrationStatus::getPluginRegistered).containsExactly(true, true);
    }
}
