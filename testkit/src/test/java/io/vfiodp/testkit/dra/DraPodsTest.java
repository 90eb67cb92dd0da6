package io.vfiodp.testkit.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.proto.podresources.v1.CDIDevice;
import io.vfiodp.proto.podresources.v1.ClaimResource;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.DynamicResource;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.testkit.pods.NodePods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pod that runs with claims holds their prepared devices until it ends, when they are unprepared; PodResources lists them. */
class DraPodsTest {

    @TempDir Path tmp;
    private FakeDraPlugin plugin;
    private DraKubeletSimulator kubelet;
    private final NodePods pods = new NodePods();

    @BeforeEach
    void register() throws Exception {
        Path registry = Files.createDirectory(tmp.resolve("plugins_registry"));
        Path endpoint = Files.createDirectories(tmp.resolve("plugins/fake.example.com")).resolve("dra.sock");
        plugin = FakeDraPlugin.start(registry.resolve("fake.example.com-reg.sock"), endpoint, FakeDraPlugin.info(endpoint, "v1.DRAPlugin"));
        kubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136);
        kubelet.register(registry.resolve("fake.example.com-reg.sock"));
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        plugin.close();
    }

    @Test
    void aPodWithAClaimHoldsItsDeviceAsPodResourcesListsIt() {
        assertThat(pods.run(kubelet, "vms", "vm1", DraKubeletSimulator.claim("vms", "vm1-gpu", "uid-1"))).isEmpty();

        assertThat(pods.claimHeld()).containsExactly("fake.example.com/pool/dev-uid-1");
        assertThat(pods.list()).isEqualTo(ListPodResourcesResponse.newBuilder().addPodResources(PodResources.newBuilder().setNamespace("vms")
                .setName("vm1").addContainers(ContainerResources.newBuilder().setName("compute").addDynamicResources(DynamicResource.newBuilder()
                        .setClaimName("vm1-gpu").setClaimNamespace("vms").addClaimResources(ClaimResource.newBuilder()
                                .setDriverName("fake.example.com").setPoolName("pool").setDeviceName("dev-uid-1")
                                .addCdiDevices(CDIDevice.newBuilder().setName("fake.example.com/vfio=uid-1")))))).build());
    }

    @Test
    void aPodThatEndsHasItsClaimsUnpreparedAndLetsGoOfTheirDevices() {
        pods.run(kubelet, "vms", "vm1", DraKubeletSimulator.claim("vms", "vm1-gpu", "uid-1"));

        assertThat(pods.end("vms", "vm1", Optional.of(kubelet))).isEqualTo(Map.of());
        assertThat(pods.claimHeld()).isEmpty();
        assertThat(plugin.calls()).containsExactly("v1.DRAPlugin NodePrepareResources", "v1.DRAPlugin NodeUnprepareResources");
    }
}
