package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.PodDetails;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which VirtualMachineInstance a pod runs, as KubeVirt's virt-controller marks its virt-launcher
 * pods (pkg/virt-controller/services/template.go, kubevirt/kubevirt d923fdb815, and its tests): a
 * controller owner reference to the VMI ({@code kubevirt.io/v1}, kind {@code VirtualMachineInstance},
 * the VMI's name and UID), the annotation {@code kubevirt.io/domain} with the VMI's name and the label
 * {@code kubevirt.io/created-by} with its UID. The label {@code vm.kubevirt.io/name} is not used:
 * it holds the VMI's host name, which {@code spec.hostname} or a dotted name makes differ from the
 * VMI's name. The VM is the VMI's controller owner, when it has one ({@link VmiOwners}).
 */
public final class LauncherPods {

    static final String VMI_KIND = "VirtualMachineInstance";
    static final String VM_KIND = "VirtualMachine";
    static final String KUBEVIRT_GROUP = "kubevirt.io/";
    static final String DOMAIN_ANNOTATION = "kubevirt.io/domain";
    static final String CREATED_BY_LABEL = "kubevirt.io/created-by";

    /** A VMI a pod names: name and UID, in the pod's namespace. */
    public record VmiRef(String namespace, String name, String uid) {}

    private LauncherPods() {}

    /** The VMI {@code pod} runs, if it is a virt-launcher pod. */
    public static Optional<VmiRef> vmiOf(HasMetadata pod) {
        String namespace = pod.getMetadata().getNamespace();
        Optional<OwnerReference> owner = controller(pod, VMI_KIND);
        if (owner.isPresent()) return Optional.of(new VmiRef(namespace, owner.get().getName(), owner.get().getUid()));
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        Map<String, String> labels = pod.getMetadata().getLabels();
        String domain = annotations == null ? null : annotations.get(DOMAIN_ANNOTATION);
        String uid = labels == null ? null : labels.get(CREATED_BY_LABEL);
        if (domain == null || domain.isBlank() || uid == null || uid.isBlank()) return Optional.empty();
        return Optional.of(new VmiRef(namespace, domain, uid));
    }

    /** The name of {@code object}'s controller owner of kind {@code kind} in KubeVirt's group, if it has one. */
    static Optional<String> controllerName(HasMetadata object, String kind) {
        return controller(object, kind).map(OwnerReference::getName);
    }

    private static Optional<OwnerReference> controller(HasMetadata object, String kind) {
        List<OwnerReference> owners = object.getMetadata().getOwnerReferences();
        if (owners == null) return Optional.empty();
        return owners.stream().filter(o -> kind.equals(o.getKind()) && o.getApiVersion() != null && o.getApiVersion().startsWith(KUBEVIRT_GROUP)
                && Boolean.TRUE.equals(o.getController()) && o.getName() != null && o.getUid() != null).findFirst();
    }

    /**
     * The pods of node {@code node} among {@code pods} (a field selector the server may not apply is
     * applied here too), with their VMIs and, through {@code vmOf}, those VMIs' VMs.
     */
    public static PodDetails.Known details(List<? extends HasMetadata> pods, String node, Function<VmiRef, Optional<String>> vmOf) {
        Map<String, PodDetails.Pod> out = new HashMap<>();
        for (HasMetadata p : pods) {
            if (!node.equals(nodeName(p))) continue;
            Optional<Holder.Vmi> vmi = vmiOf(p).map(v -> new Holder.Vmi(v.name(), v.uid(), vmOf.apply(v)));
            out.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
                    new PodDetails.Pod(p.getMetadata().getUid() == null ? "" : p.getMetadata().getUid(), vmi));
        }
        return new PodDetails.Known(out);
    }

    /** The pods of node {@code node} among {@code pods} with their VMIs' VMs as {@code owners} reads them; it forgets every other VMI. */
    static PodDetails.Known details(List<? extends HasMetadata> pods, String node, VmiOwners owners) {
        PodDetails.Known known = details(pods, node, owners::vmOf);
        owners.keepOnly(known.pods().values().stream().flatMap(p -> p.vmi().stream()).map(Holder.Vmi::uid).toList());
        return known;
    }

    /** {@code spec.nodeName} of a pod as the API gives it (a generic resource, see {@link PodsOnNode}) or as built typed. */
    private static String nodeName(HasMetadata pod) {
        if (pod instanceof GenericKubernetesResource g) return g.get("spec", "nodeName") instanceof String s ? s : null;
        return pod instanceof Pod p && p.getSpec() != null ? p.getSpec().getNodeName() : null;
    }
}
