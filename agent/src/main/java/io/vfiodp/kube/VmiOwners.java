package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The VirtualMachine that owns each VMI (its controller owner reference: KubeVirt's VM controller
 * creates the VMI with the VM's name and that reference, pkg/virt-controller/watch/vm/vm.go
 * {@code SetupVMIFromVM}). One {@code get} per VMI, kept by UID since a VMI's owner never changes;
 * a failed one is not asked again for {@link #RETRY}, and said once in the log. Not thread-safe:
 * one caller thread.
 */
public final class VmiOwners {

    static final Duration RETRY = Duration.ofMinutes(5);
    /** Named outright: the client then asks no discovery for the plural. */
    static final ResourceDefinitionContext VMIS = new ResourceDefinitionContext.Builder().withGroup("kubevirt.io").withVersion("v1")
            .withKind(LauncherPods.VMI_KIND).withPlural("virtualmachineinstances").withNamespaced(true).build();
    private static final Logger LOG = LoggerFactory.getLogger(VmiOwners.class);

    /** A VMI's owner as read, or when reading it last failed. */
    private sealed interface Entry {
        record Read(Optional<String> vm) implements Entry {}

        record Failed(long atNanos) implements Entry {}
    }

    private final KubernetesClient client;
    private final Ticker ticker;
    private final Map<String, Entry> byUid = new HashMap<>();
    private final ProblemLog problems = new ProblemLog(LOG);

    public VmiOwners(KubernetesClient client, Ticker ticker) {
        this.client = client;
        this.ticker = ticker;
    }

    /** The VM that owns {@code vmi}; empty for a VMI of its own, one that is gone, or while it cannot be read. */
    public Optional<String> vmOf(LauncherPods.VmiRef vmi) {
        Entry known = byUid.get(vmi.uid());
        if (known instanceof Entry.Read r) return r.vm();
        if (known instanceof Entry.Failed f && ticker.nanos() - f.atNanos() < RETRY.toNanos()) return Optional.empty();
        try {
            GenericKubernetesResource read = client.genericKubernetesResources(VMIS).inNamespace(vmi.namespace()).withName(vmi.name()).get();
            // gone, or a newer VMI of the same name: the pod's VMI has no owner to tell any more
            Optional<String> vm = read == null || !vmi.uid().equals(read.getMetadata().getUid()) ? Optional.empty()
                    : LauncherPods.controllerName(read, LauncherPods.VM_KIND);
            byUid.put(vmi.uid(), new Entry.Read(vm));
            problems.resolved("reading VirtualMachineInstances works again: the VMs that own them are shown");
            return vm;
        } catch (KubernetesClientException e) {
            String why = SupervisedInformer.describe(e, "get on virtualmachineinstances.kubevirt.io", "KubeVirt is not installed");
            problems.problem(why, "cannot read VirtualMachineInstance " + vmi.namespace() + "/" + vmi.name() + " for the VM that owns it: " + why
                    + "; holders are shown with their VMI alone meanwhile");
            byUid.put(vmi.uid(), new Entry.Failed(ticker.nanos()));
            return Optional.empty();
        }
    }

    /** Forgets every VMI but these (their pods are gone). */
    void keepOnly(Collection<String> uids) {
        Set<String> keep = new HashSet<>(uids);
        byUid.keySet().removeIf(uid -> !keep.contains(uid));
    }
}
