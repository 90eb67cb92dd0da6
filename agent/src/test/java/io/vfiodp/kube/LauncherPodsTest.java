package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.PodDetails;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A virt-launcher pod names its VMI as KubeVirt's virt-controller marks it; other pods name none. */
class LauncherPodsTest {

    @Test
    void theControllerOwnerReferenceNamesTheVmi() {
        Pod pod = LauncherPodFixtures.launcher("vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1", "vmi-uid-1");

        assertThat(LauncherPods.vmiOf(pod)).contains(new LauncherPods.VmiRef("vms", "vm1", "vmi-uid-1"));
    }

    @Test
    void aDottedNameIsTheVmisNotTheHostNameTheVmNameLabelHolds() {
        Pod pod = LauncherPodFixtures.launcher("vms", "virt-launcher-db-x7k2p", "node-a", "db.prod", "vmi-uid-2");

        assertThat(pod.getMetadata().getLabels()).containsEntry("vm.kubevirt.io/name", "db");
        assertThat(LauncherPods.vmiOf(pod)).contains(new LauncherPods.VmiRef("vms", "db.prod", "vmi-uid-2"));
    }

    @Test
    void withoutTheOwnerReferenceTheDomainAnnotationAndCreatedByLabelNameIt() {
        Pod pod = new PodBuilder(LauncherPodFixtures.launcher("vms", "virt-launcher-vm1-x7k2p", "node-a", "vm1", "vmi-uid-1"))
                .editMetadata().withOwnerReferences(List.of()).endMetadata().build();

        assertThat(LauncherPods.vmiOf(pod)).contains(new LauncherPods.VmiRef("vms", "vm1", "vmi-uid-1"));
    }

    @Test
    void aPodOfNoVmNamesNone() {
        assertThat(LauncherPods.vmiOf(LauncherPodFixtures.plain("vms", "plain", "node-a"))).isEmpty();
    }

    @Test
    void anOwnerThatIsNotTheControllerIsNotTheVmi() {
        Pod pod = new PodBuilder(LauncherPodFixtures.plain("vms", "p", "node-a")).editMetadata().addNewOwnerReference()
                .withApiVersion("kubevirt.io/v1").withKind("VirtualMachineInstance").withName("vm1").withUid("u").withController(false)
                .endOwnerReference().endMetadata().build();

        assertThat(LauncherPods.vmiOf(pod)).isEmpty();
    }

    @Test
    void onlyThePodsOfThisNodeCount() {
        Pod here = new PodBuilder(LauncherPodFixtures.launcher("vms", "a", "node-a", "vm1", "vmi-uid-1")).editMetadata().withUid("pod-a")
                .endMetadata().build();
        Pod there = LauncherPodFixtures.launcher("vms", "b", "node-b", "vm2", "vmi-uid-2");

        PodDetails.Known details = LauncherPods.details(List.of(here, there), "node-a", vmi -> Optional.empty());

        assertThat(details.pods()).containsOnlyKeys("vms/a");
        assertThat(details.pod("vms", "a")).contains(new PodDetails.Pod("pod-a", Optional.of(new Holder.Vmi("vm1", "vmi-uid-1", Optional.empty()))));
    }
}
