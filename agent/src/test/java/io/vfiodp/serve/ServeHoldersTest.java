package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.Holding;
import io.vfiodp.kube.LauncherPodFixtures;
import io.vfiodp.testkit.pods.NodePods;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * serve knows which pod (and which VM) holds each device its device plugins hand out, from the
 * kit's PodResources and the API's pods: PCI functions, mdevs and SR-IOV vGPUs; a pod with two GPU
 * containers; a device turning Unhealthy under a VM; and when PodResources or the API fail.
 */
class ServeHoldersTest {

    static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    static final String A = "0000:1a:00.0";
    static final String B = "0000:1b:00.0";
    static final String LAUNCHER = "virt-launcher-vm1-x7k2p";

    @TempDir Path root;

    @Test
    void theVmsPodHoldsItsGpuWithItsVmiAndVmUntilItEndsAndAnUnhealthyGpuIsAnEventOnPodAndVmi() throws Exception {
        try (HolderNode node = new HolderNode(root, "t4-numa", HolderNode.Api.UP).awaitListed(T4, A)) {
            Pod pod = LauncherPodFixtures.createVm(node.api.orElseThrow().client(), "vms", LAUNCHER, HolderNode.NODE, "vm1", Optional.of("vm1"));

            assertThat(node.pods.admit(node.kubelet, "vms", LAUNCHER, List.of(NodePods.ContainerAsk.named("compute", T4, List.of(A)))))
                    .isInstanceOf(NodePods.Admission.Admitted.class);

            await().atMost(HolderNode.WAIT).until(() -> node.awaitHeld(A).getFirst().vmi().flatMap(Holder.Vmi::vm).isPresent());
            assertThat(node.awaitHeld(A)).singleElement().satisfies(h -> {
                assertThat(h.podName()).isEqualTo("vms/" + LAUNCHER);
                assertThat(h.container()).isEqualTo("compute");
                assertThat(h.via()).isEqualTo(new Holder.Via.Plugin(T4));
                assertThat(h.vmi()).contains(new Holder.Vmi("vm1", pod.getMetadata().getOwnerReferences().getFirst().getUid(), Optional.of("vm1")));
            });
            assertThat(node.holding(B)).isEqualTo(Holding.FREE);

            node.host.removeGroupNode(24);
            List<Event> events = await().atMost(HolderNode.WAIT).until(
                    () -> node.api.orElseThrow().client().v1().events().inNamespace("vms").list().getItems(), l -> l.size() == 2);
            assertThat(events).extracting(e -> e.getInvolvedObject().getKind() + " " + e.getInvolvedObject().getName() + ": " + e.getMessage())
                    .containsExactlyInAnyOrder(
                            "Pod " + LAUNCHER + ": device 0000:1a:00.0 (" + T4 + "), held by container compute, is Unhealthy: IOMMU group 24:"
                                    + " /dev/vfio/24 missing",
                            "VirtualMachineInstance vm1: device 0000:1a:00.0 (" + T4 + "), held by pod vms/" + LAUNCHER + ", is Unhealthy:"
                                    + " IOMMU group 24: /dev/vfio/24 missing");

            // the pod ends: the kubelet lets go of the device, the API deletes the pod and the watch says so
            node.pods.end("vms", LAUNCHER, Optional.empty());
            node.api.orElseThrow().client().pods().inNamespace("vms").withName(LAUNCHER).delete();
            await().atMost(HolderNode.WAIT).until(() -> node.holding(A) == Holding.FREE);
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "t4-vgpu, nvidia.com/GRID_T4-2Q, e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64",
        "l40s-sriov, nvidia.com/NVIDIA_L40S-4Q, 0000:41:00.4"
    })
    void withoutAnApiAVgpuIsHeldByPodAndContainerAndTheVmiIsUnknown(String fixture, String resource, String device) throws Exception {
        try (HolderNode node = new HolderNode(root, fixture, HolderNode.Api.NONE).awaitListed(resource, device)) {
            node.pods.admit(node.kubelet, "vms", LAUNCHER, List.of(NodePods.ContainerAsk.named("compute", resource, List.of(device))));

            assertThat(node.awaitHeld(device)).containsExactly(new Holder("vms", LAUNCHER, "compute", new Holder.Via.Plugin(resource),
                    Optional.empty()));
            assertThat(node.view().unknownVmis()).contains("no Kubernetes API is configured");
        }
    }

    @Test
    void aPodWithTwoGpuContainersShowsEachContainersDevice() throws Exception {
        try (HolderNode node = new HolderNode(root, "t4-numa", HolderNode.Api.NONE).awaitListed(T4, B)) {
            node.pods.admit(node.kubelet, "vms", "two", List.of(NodePods.ContainerAsk.named("compute", T4, List.of(A)),
                    NodePods.ContainerAsk.named("second", T4, List.of(B))));

            assertThat(node.awaitHeld(A)).extracting(Holder::container).containsExactly("compute");
            assertThat(node.awaitHeld(B)).extracting(Holder::container).containsExactly("second");
        }
    }

    @Test
    void whilePodResourcesFailsOrHangsAllocateIsAnsweredAndEveryDeviceIsUnknownNeverFree() throws Exception {
        try (HolderNode node = new HolderNode(root, "t4-numa", HolderNode.Api.NONE).awaitListed(T4, A)) {
            node.podResources.unavailable(true);
            node.pods.admit(node.kubelet, "vms", "vm1", List.of(NodePods.ContainerAsk.named("compute", T4, List.of(A))));
            await().atMost(HolderNode.WAIT).until(() -> node.view().unknownHolders().isPresent()
                    && node.view().unknownHolders().get().contains("UNAVAILABLE"));
            assertThat(node.view().entries()).extracting(HolderView.Entry::holding).allMatch(Holding.Unknown.class::isInstance);

            // a kubelet that hangs: the next Allocate is answered all the same, and the read ends at its deadline
            node.podResources.unavailable(false);
            node.podResources.stall(true);
            assertThat(node.pods.admit(node.kubelet, "vms", "vm2", List.of(NodePods.ContainerAsk.named("compute", T4, List.of(B)))))
                    .isInstanceOf(NodePods.Admission.Admitted.class);
            await().atMost(HolderNode.WAIT).until(() -> node.view().unknownHolders().orElse("").contains("DEADLINE_EXCEEDED"));

            node.podResources.stall(false);
            node.pods.admit(node.kubelet, "vms", "vm3", List.of(NodePods.ContainerAsk.named("compute", T4, List.of("0000:b1:00.0"))));
            assertThat(node.awaitHeld("0000:b1:00.0")).extracting(Holder::podName).containsExactly("vms/vm3");
            assertThat(node.awaitHeld(A)).extracting(Holder::podName).containsExactly("vms/vm1");
        }
    }

    @Test
    void whileTheApiIsDownHoldersArePodsAndContainersWithoutVmi() throws Exception {
        try (HolderNode node = new HolderNode(root, "t4-numa", HolderNode.Api.DOWN).awaitListed(T4, A)) {
            node.pods.admit(node.kubelet, "vms", LAUNCHER, List.of(NodePods.ContainerAsk.named("compute", T4, List.of(A))));

            assertThat(node.awaitHeld(A)).containsExactly(new Holder("vms", LAUNCHER, "compute", new Holder.Via.Plugin(T4), Optional.empty()));
            assertThat(node.view().unknownVmis()).hasValueSatisfying(why -> assertThat(why).contains("API server unreachable"));
        }
    }
}
