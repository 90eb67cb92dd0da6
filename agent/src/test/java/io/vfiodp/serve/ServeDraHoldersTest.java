package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.Claims;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.Holding;
import io.vfiodp.kube.LauncherPodFixtures;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler;
import io.vfiodp.testkit.pods.NodePods;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve knows which pod holds each device its DRA driver prepared, from the kit's PodResources:
 * a claim, a claim two pods share, the scheduler's claim of a VM's extended resources (with the VM
 * from the API), and, during a switch, a device a pod still holds through the device plugin beside
 * the claims of the devices that went to DRA.
 */
class ServeDraHoldersTest {

    static final String A = "0000:1a:00.0";
    static final String B = "0000:1b:00.0";
    static final String B1 = "0000:b1:00.0";

    @TempDir Path root;

    static List<Holder> awaitHeld(SwitchNode node, String device) {
        return await().atMost(SwitchNode.WAIT).until(() -> node.holders().holding(device).orElse(Holding.FREE) instanceof Holding.Held h
                ? h.holders() : null, h -> h != null);
    }

    @Test
    void aClaimAndAClaimTwoPodsShareAreShownWithEveryPod() throws Exception {
        try (SwitchNode node = new SwitchNode(root)) {
            node.serve(DraRouting.ALL);
            node.awaitSliceOffers(java.util.Set.of(A, B, B1));

            assertThat(node.runWithClaim("vm1", B)).isTrue();
            assertThat(awaitHeld(node, B)).containsExactly(new Holder("vms", "vm1", NodePods.CONTAINER,
                    new Holder.Via.Claim("vms", "vm1-gpu"), Optional.empty()));

            ResourceClaim shared = Claims.create(node.api.client(), Claims.allocated("shared-gpu", "uid-shared",
                    Claims.result("gpu", SwitchNode.DRIVER, SwitchNode.NODE, SwitchNode.nameOf(B1))));
            DraKubeletSimulator.claim("vms", "shared-gpu", shared.getMetadata().getUid());
            assertThat(node.pods.run(node.draKubelet, "vms", "a", DraKubeletSimulator.claim("vms", "shared-gpu", shared.getMetadata().getUid())))
                    .isEmpty();
            assertThat(node.pods.run(node.draKubelet, "vms", "b", DraKubeletSimulator.claim("vms", "shared-gpu", shared.getMetadata().getUid())))
                    .isEmpty();
            await().atMost(SwitchNode.WAIT).until(() -> awaitHeld(node, B1).size() == 2);
            assertThat(awaitHeld(node, B1)).extracting(Holder::podName).containsExactly("vms/a", "vms/b");
            assertThat(node.holders().holding(A)).contains(Holding.FREE);
        }
    }

    @Test
    void theSchedulersClaimOfAVmsExtendedResourcesIsHeldByTheVmsPodWithItsVmiAndVm() throws Exception {
        try (SwitchNode node = new SwitchNode(root)) {
            node.serve(DraRouting.ALL);
            node.awaitSliceOffers(java.util.Set.of(A, B, B1));
            String launcher = "virt-launcher-vm2-abcde";
            Pod pod = LauncherPodFixtures.createVm(node.api.client(), "vms", launcher, SwitchNode.NODE, "vm2", Optional.of("vm2"));
            ExtendedResourcePod asking = new ExtendedResourcePod("vms", launcher, pod.getMetadata().getUid(),
                    List.of(ExtendedResourcePod.Container.virtLauncher(SwitchNode.T4, 1)));
            ExtendedResourceClaim scheduled = ExtendedResourceScheduler.schedule(asking,
                    Map.of(SwitchNode.T4, ExtendedResourceClasses.className(SwitchNode.DRIVER, ResourceName.of(SwitchNode.T4))),
                    Map.of(SwitchNode.T4, List.of(new ExtendedResourceScheduler.Candidate(SwitchNode.DRIVER, SwitchNode.NODE, SwitchNode.nameOf(A)))));
            ResourceClaim claim = node.api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace("vms")
                    .resource(Serialization.unmarshal(scheduled.claimJson(), ResourceClaim.class)).create();
            pod.setStatus(Serialization.unmarshal(scheduled.podStatusJson(), PodStatus.class));
            node.api.client().pods().inNamespace("vms").resource(pod).updateStatus();
            Map<String, String> errors = new HashMap<>();

            node.pods.runExtended(node.draKubelet, asking, scheduled, claim.getMetadata().getUid(), errors);

            assertThat(errors).isEmpty();
            await().atMost(SwitchNode.WAIT).until(() -> awaitHeld(node, A).getFirst().vmi().flatMap(Holder.Vmi::vm).isPresent());
            assertThat(awaitHeld(node, A)).singleElement().satisfies(h -> {
                assertThat(h.podName()).isEqualTo("vms/" + launcher);
                assertThat(h.container()).isEqualTo("compute");
                assertThat(h.via()).isEqualTo(new Holder.Via.Claim("vms", scheduled.name()));
                assertThat(h.vmi().map(Holder.Vmi::name)).contains("vm2");
                assertThat(h.vmi().flatMap(Holder.Vmi::vm)).contains("vm2");
            });
        }
    }

    @Test
    void duringASwitchAPodStillHoldsItsDeviceThroughTheDevicePluginBesideTheClaimsOfTheOthers() throws Exception {
        try (SwitchNode node = new SwitchNode(root)) {
            node.serve(DraRouting.NONE);
            node.awaitAllocatable(java.util.Set.of(A, B, B1));
            assertThat(node.admit("vm1")).contains(A);

            node.restart(DraRouting.ALL);
            node.awaitSliceOffers(java.util.Set.of(B, B1));
            assertThat(node.runWithClaim("vm2", B)).isTrue();

            assertThat(awaitHeld(node, A)).containsExactly(new Holder("vms", "vm1", NodePods.CONTAINER, new Holder.Via.Plugin(SwitchNode.T4),
                    Optional.empty()));
            assertThat(awaitHeld(node, B)).containsExactly(new Holder("vms", "vm2", NodePods.CONTAINER, new Holder.Via.Claim("vms", "vm2-gpu"),
                    Optional.empty()));
        }
    }
}
