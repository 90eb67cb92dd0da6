package io.vfiodp.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.classes.ExtendedResourceClass;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The DRA part's second half: a VM as it runs today, {@code gpus: [{deviceName: nvidia.com/...}]},
 * moved onto DRA unchanged (KEP-5004). The DeviceClass with the resource's extended resource name
 * is applied as {@code inventory --device-classes} prints it; the demo plays the scheduler (the
 * special claim, allocated to the device Allocate handed out, and the pod's
 * {@code extendedResourceClaimStatus}) and the kubelet (prepare, the container's CDI devices); a
 * container runtime applies them; the env and device nodes are printed beside Allocate's.
 */
final class ExtendedResourceDemo {

    private static final String NAMESPACE = "vms";
    private static final String POD = "virt-launcher-vm-t4-x7k2p";

    private ExtendedResourceDemo() {}

    /** The class a pod asking {@code resource} needs, applied to the API before serve starts, as an operator applies it once. */
    static void applyClass(PrintWriter out, DemoApiServer api, ResourceName resource) {
        ExtendedResourceClass cls = ((ExtendedResourceClasses.Named) ExtendedResourceClasses.of(DraSettings.DEFAULT_DRIVER, resource)).deviceClass();
        api.client().dynamicResourceAllocation().v1().deviceClasses().resource(cls.toDeviceClass()).create();
        out.println("   DeviceClass " + cls.name() + " (extendedResourceName " + resource.value() + ", as `inventory --dra-resources all"
                + " --device-classes` prints it) applied; serve only reads it");
    }

    /**
     * @param allocated what the device-plugin part's Allocate gave, for the device this part claims again
     * @param device    that device's name in the node's pool
     */
    static void run(PrintWriter out, DemoApiServer api, DraKubeletSimulator kubelet, Path cdi, DemoAllocation allocated, String device,
                    DemoRun.RunningServe serving, DemoRun.Endpoints endpoints) throws IOException {
        String resource = allocated.resource().value();
        out.println();
        out.println("== A VM as it runs today, gpus: [{deviceName: " + resource + "}], on DRA unchanged: its virt-launcher pod asks "
                + resource + ": 1");
        Pod pod = api.client().pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(POD).withNamespace(NAMESPACE)
                .endMetadata().withNewSpec().addNewContainer().withName("compute").withImage("virt-launcher").endContainer().endSpec().build())
                .create();
        ExtendedResourcePod asking = new ExtendedResourcePod(NAMESPACE, POD, pod.getMetadata().getUid(),
                List.of(ExtendedResourcePod.Container.virtLauncher(resource, 1)));
        ExtendedResourceClaim scheduled = ExtendedResourceScheduler.schedule(asking,
                Map.of(resource, ExtendedResourceClasses.className(DraSettings.DEFAULT_DRIVER, allocated.resource())),
                Map.of(resource, List.of(new ExtendedResourceScheduler.Candidate(DraSettings.DEFAULT_DRIVER, DraDemo.NODE, device))));
        ResourceClaim claim = api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace(NAMESPACE)
                .resource(Serialization.unmarshal(scheduled.claimJson(), ResourceClaim.class)).create();
        pod.setStatus(Serialization.unmarshal(scheduled.podStatusJson(), PodStatus.class));
        api.client().pods().inNamespace(NAMESPACE).resource(pod).updateStatus();
        ExtendedResourceClaim.Mapping mapping = scheduled.mappings().getFirst();
        out.println("  the scheduler (played here) wrote ResourceClaim " + NAMESPACE + "/" + scheduled.name() + " (annotated "
                + ExtendedResourceScheduler.ANNOTATION + ", owned by pod " + POD + "): request " + mapping.requestName() + " -> " + device
                + ", and pod.status.extendedResourceClaimStatus maps container " + mapping.containerName() + "'s " + resource + " to it");

        String uid = claim.getMetadata().getUid();
        List<String> ids = kubelet.prepareExtendedResources(asking, scheduled, uid).get("compute");
        out.println("  NodePrepareResources: the kubelet hands container compute the CDI devices " + ids);
        CdiRuntime.Edits edits = new CdiRuntime(cdi).edits(ids);
        List<String> viaDra = new ArrayList<>();
        edits.env().forEach((k, v) -> viaDra.add("env     " + k + "=" + v));
        edits.deviceNodes().forEach(n -> viaDra.add("device  " + n.hostPath()));
        List<String> viaAllocate = new ArrayList<>();
        new TreeMap<>(allocated.response().getEnvsMap()).forEach((k, v) -> viaAllocate.add("env     " + k + "=" + v));
        allocated.response().getDevicesList().stream().map(DeviceSpec::getHostPath).forEach(p -> viaAllocate.add("device  " + p));
        int width = viaDra.stream().mapToInt(String::length).max().orElse(0) + 4;
        out.printf("    %-" + width + "s%s%n", "through DRA (CDI, as the runtime applies it)", "Allocate, in the device-plugin part above");
        for (int i = 0; i < Math.max(viaDra.size(), viaAllocate.size()); i++) {
            out.printf("    %-" + width + "s%s%n", i < viaDra.size() ? viaDra.get(i) : "", i < viaAllocate.size() ? viaAllocate.get(i) : "");
        }
        out.println("    " + (viaDra.equals(viaAllocate) ? "the same env and device nodes: virt-launcher reads " + allocated.response().getEnvsMap().keySet()
                + " as before" : "THEY DIFFER") + (edits.overwritten().isEmpty() ? "" : "; overwritten: " + edits.overwritten()));

        String error = kubelet.unprepare(DraKubeletSimulator.claim(NAMESPACE, scheduled.name(), uid)).getClaimsOrThrow(uid).getError();
        out.println("  NodeUnprepareResources (the VM's pod is gone): " + (error.isEmpty() ? "ok" : error));
        if (endpoints == DemoRun.Endpoints.PROBES) return;
        DemoRun.HttpAnswer metrics = DemoRun.get(serving.metricsPort(), "/metrics");
        metrics.body().lines().filter(l -> l.startsWith("vfio_dp_dra_device_class_ready{")).forEach(l -> out.println("  GET /metrics  " + l));
    }
}
