package io.vfiodp.testkit.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.vfiodp.testkit.dra.ExtendedResourceClaim.Mapping;
import io.vfiodp.testkit.dra.ExtendedResourceClaim.Request;
import io.vfiodp.testkit.dra.ExtendedResourceClaim.Result;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler.Candidate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The scheduler's special claim as kube-scheduler writes it for a pod's extended resources backed by DRA. */
class ExtendedResourceSchedulerTest {

    private static final String GPU = "example.com/gpu";
    private static final Map<String, String> CLASSES = Map.of(GPU, "gpu.example.com");
    private static final List<Candidate> DEVICES = List.of(new Candidate("drv.example.com", "node-a", "dev-0"),
            new Candidate("drv.example.com", "node-a", "dev-1"), new Candidate("drv.example.com", "node-a", "dev-2"));

    private static ExtendedResourcePod.Container container(String name, Map<String, Long> requests) {
        return new ExtendedResourcePod.Container(name, new TreeMap<>(requests));
    }

    @Test
    void aVirtLaunchersRequestIsNumberedByItsResourcesPlaceAmongAllTheContainersRequests() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "virt-launcher-vm-a", "pod-uid", List.of(ExtendedResourcePod.Container.virtLauncher(GPU, 1)));

        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES));

        // cpu, devices.kubevirt.io/kvm, .../tun, .../vhost-net, example.com/gpu, memory: the GPU is the fifth
        assertThat(claim.requests()).containsExactly(new Request("container-0-request-4", GPU, "gpu.example.com", 1));
        assertThat(claim.results()).containsExactly(new Result("container-0-request-4", "drv.example.com", "node-a", "dev-0"));
        assertThat(claim.mappings()).containsExactly(new Mapping("compute", GPU, "container-0-request-4"));
    }

    @Test
    void twoContainersAskingTheResourceGetARequestEachWithTheirOwnDevices() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "two", "pod-uid", List.of(container("a", Map.of(GPU, 2L)),
                container("b", Map.of("cpu", 1L, GPU, 1L))));

        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES));

        assertThat(claim.requests()).extracting(Request::name, Request::count).containsExactly(
                tuple("container-0-request-0", 2L), tuple("container-1-request-1", 1L));
        assertThat(claim.resultsOf("container-0-request-0")).extracting(Result::device).containsExactly("dev-0", "dev-1");
        assertThat(claim.resultsOf("container-1-request-1")).extracting(Result::device).containsExactly("dev-2");
        assertThat(claim.mappings()).containsExactly(new Mapping("a", GPU, "container-0-request-0"), new Mapping("b", GPU, "container-1-request-1"));
    }

    @Test
    void resourcesWithoutADeviceClassAreLeftToTheDevicePlugins() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "p", "pod-uid", List.of(container("c", Map.of(GPU, 1L, "other.com/nic", 1L))));

        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES));

        assertThat(claim.mappings()).containsExactly(new Mapping("c", GPU, "container-0-request-0"));
    }

    @Test
    void aRequestTheCandidatesCannotSatisfyIsRefusedByName() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "p", "pod-uid", List.of(container("c", Map.of(GPU, 4L))));

        assertThatThrownBy(() -> ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES)))
                .isInstanceOf(IllegalStateException.class).hasMessage("request container-0-request-0 asks 4 of example.com/gpu, 3 candidate device(s) left");
    }

    @Test
    void theClaimIsAnnotatedOwnedByThePodReservedForItAndNamedFromItsName() {
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", "virt-launcher-vm-a", "pod-uid", List.of(container("c", Map.of(GPU, 1L))));
        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES));

        JsonNode json = new JsonMapper().readTree(claim.claimJson());

        assertThat(claim.name()).startsWith("virt-launcher-vm-a-extended-resources-").hasSize("virt-launcher-vm-a-extended-resources-".length() + 5);
        assertThat(json.at("/metadata/annotations/resource.kubernetes.io~1extended-resource-claim").asString()).isEqualTo("true");
        assertThat(json.at("/metadata/ownerReferences/0/kind").asString() + " " + json.at("/metadata/ownerReferences/0/uid").asString()
                + " controller=" + json.at("/metadata/ownerReferences/0/controller").asBoolean()).isEqualTo("Pod pod-uid controller=true");
        assertThat(json.at("/spec/devices/requests/0/exactly/deviceClassName").asString()).isEqualTo("gpu.example.com");
        assertThat(json.at("/status/allocation/devices/results/0/device").asString()).isEqualTo("dev-0");
        assertThat(json.at("/status/reservedFor/0/uid").asString()).isEqualTo("pod-uid");
        assertThat(new JsonMapper().readTree(claim.podStatusJson()).at("/extendedResourceClaimStatus/requestMappings/0/requestName").asString())
                .isEqualTo("container-0-request-0");
    }

    @Test
    void aLongPodNameIsCutTo58CharactersBeforeTheGeneratedSuffix() {
        String name = "x".repeat(70);
        ExtendedResourcePod pod = new ExtendedResourcePod("vms", name, "pod-uid", List.of(container("c", Map.of(GPU, 1L))));

        assertThat(ExtendedResourceScheduler.schedule(pod, CLASSES, Map.of(GPU, DEVICES)).name()).hasSize(63).startsWith("x".repeat(58));
    }
}
