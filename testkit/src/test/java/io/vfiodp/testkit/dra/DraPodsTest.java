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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pod that runs with claims holds their prepared devices until it ends, when they are unprepared; PodResources lists them. */
class DraPodsTest {

    private static final String GPU = "example.com/gpu";

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

    @Test
    void aClaimTwoPodsShareIsPreparedOnceListedForBothAndUnpreparedWhenTheLastEnds() {
        assertThat(pods.run(kubelet, "vms", "vm1", DraKubeletSimulator.claim("vms", "shared-gpu", "uid-1"))).isEmpty();
        assertThat(pods.run(kubelet, "vms", "vm2", DraKubeletSimulator.claim("vms", "shared-gpu", "uid-1"))).isEmpty();

        assertThat(pods.list().getPodResourcesList()).extracting(PodResources::getName).containsExactly("vm1", "vm2");
        assertThat(pods.list().getPodResourcesList()).allSatisfy(p -> assertThat(p.getContainers(0).getDynamicResources(0)
                .getClaimResources(0).getDeviceName()).isEqualTo("dev-uid-1"));
        assertThat(pods.end("vms", "vm1", Optional.of(kubelet))).isEmpty();
        assertThat(pods.claimHeld()).containsExactly("fake.example.com/pool/dev-uid-1");
        assertThat(pods.end("vms", "vm2", Optional.of(kubelet))).isEmpty();
        assertThat(pods.claimHeld()).isEmpty();
        assertThat(plugin.calls()).containsExactly("v1.DRAPlugin NodePrepareResources", "v1.DRAPlugin NodeUnprepareResources");
    }

    @Test
    void theExtendedResourceClaimIsListedForEveryContainerItsMappingsNameWithAllItsDevices() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "two", "pod-uid", List.of(
                new ExtendedResourcePod.Container("a", new TreeMap<>(Map.of(GPU, 1L))),
                new ExtendedResourcePod.Container("b", new TreeMap<>(Map.of(GPU, 1L))),
                new ExtendedResourcePod.Container("sidecar", new TreeMap<>(Map.of("cpu", 1L)))));
        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, Map.of(GPU, "gpu.example.com"),
                Map.of(GPU, List.of(new ExtendedResourceScheduler.Candidate("fake.example.com", "pool", "dev-0"),
                        new ExtendedResourceScheduler.Candidate("fake.example.com", "pool", "dev-1"))));
        Map<String, String> errors = new java.util.HashMap<>();

        Map<String, List<String>> cdi = pods.runExtended(kubelet, pod, claim, "uid-x", errors);

        assertThat(errors).isEmpty();
        assertThat(cdi).containsOnlyKeys("a", "b");
        PodResources listed = pods.list().getPodResources(0);
        assertThat(listed.getContainersList()).extracting(ContainerResources::getName).containsExactly("a", "b", "sidecar");
        for (int i = 0; i < 2; i++) {
            assertThat(listed.getContainers(i).getDynamicResourcesList()).singleElement().satisfies(d -> {
                assertThat(d.getClaimName()).isEqualTo(claim.name());
                assertThat(d.getClaimResourcesList()).extracting(ClaimResource::getDeviceName).containsExactly("dev-uid-x");
            });
        }
        assertThat(listed.getContainers(2).getDynamicResourcesList()).isEmpty();
    }

    @Test
    void aRefusedExtendedResourceClaimLeavesThePodOut() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "bad", "pod-uid", List.of(ExtendedResourcePod.Container.virtLauncher(GPU, 1)));
        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, Map.of(GPU, "gpu.example.com"),
                Map.of(GPU, List.of(new ExtendedResourceScheduler.Candidate("fake.example.com", "pool", "dev-0"))));
        Map<String, String> errors = new java.util.HashMap<>();

        assertThat(pods.runExtended(kubelet, pod, claim, FakeDraPlugin.REFUSED, errors)).isEmpty();

        assertThat(errors).containsKey(FakeDraPlugin.REFUSED);
        assertThat(pods.running()).isEmpty();
    }
}
