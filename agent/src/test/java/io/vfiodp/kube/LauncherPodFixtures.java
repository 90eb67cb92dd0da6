package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Optional;

/**
 * Virt-launcher pods and VMIs as KubeVirt writes them (pkg/virt-controller/services/template.go
 * {@code podLabels}, {@code generatePodAnnotations}, the pod's owner reference; pkg/virt-controller/watch/vm/vm.go
 * {@code SetupVMIFromVM}), for the tests' API server.
 */
public final class LauncherPodFixtures {

    private LauncherPodFixtures() {}

    /** A VMI, owned by VM {@code vm} when there is one (of the same name, as KubeVirt's VM controller makes it); returns it as stored. */
    public static GenericKubernetesResource vmi(KubernetesClient client, String namespace, String name, Optional<String> vm) {
        GenericKubernetesResourceBuilder b = new GenericKubernetesResourceBuilder().withApiVersion("kubevirt.io/v1")
                .withKind("VirtualMachineInstance").withNewMetadata().withNamespace(namespace).withName(name).endMetadata();
        vm.ifPresent(v -> b.editMetadata().addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("kubevirt.io/v1")
                .withKind("VirtualMachine").withName(v).withUid("vm-uid-" + v).withController(true).withBlockOwnerDeletion(true).build())
                .endMetadata());
        return client.genericKubernetesResources(VmiOwners.VMIS).inNamespace(namespace).resource(b.build()).create();
    }

    /** The virt-launcher pod of VMI {@code vmi} (name and UID) on node {@code node}, unsaved. */
    public static Pod launcher(String namespace, String pod, String node, String vmi, String vmiUid) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(pod)
                .withLabels(Map.of("kubevirt.io", "virt-launcher", "kubevirt.io/created-by", vmiUid, "vm.kubevirt.io/name",
                        vmi.split("\\.")[0], "vmi.kubevirt.io/id", vmi))
                .withAnnotations(Map.of("kubevirt.io/domain", vmi, "kubectl.kubernetes.io/default-container", "compute"))
                .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("kubevirt.io/v1").withKind("VirtualMachineInstance")
                        .withName(vmi).withUid(vmiUid).withController(true).withBlockOwnerDeletion(true).build())
                .endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("compute").withImage("virt-launcher").endContainer().endSpec()
                .build();
    }

    /** A pod that runs no VM, on node {@code node}, unsaved. */
    public static Pod plain(String namespace, String pod, String node) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(pod).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("main").withImage("busybox").endContainer().endSpec().build();
    }

    /** Creates VMI {@code vmi} (owned by VM {@code vm}) and its launcher pod {@code pod} on {@code node}; returns the stored pod. */
    public static Pod createVm(KubernetesClient client, String namespace, String pod, String node, String vmi, Optional<String> vm) {
        String uid = vmi(client, namespace, vmi, vm).getMetadata().getUid();
        return client.pods().inNamespace(namespace).resource(launcher(namespace, pod, node, vmi, uid)).create();
    }
}
