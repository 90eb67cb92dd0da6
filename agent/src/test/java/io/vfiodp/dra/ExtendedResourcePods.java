package io.vfiodp.dra;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.Allocation;
import io.vfiodp.plugin.ResourceView;
import io.vfiodp.plugin.RpcOutcome;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pods asking extended resources that a node serves through our DRA driver, taken the whole way:
 * the test kit plays the scheduler (the special claim, allocated to the devices a test names) and
 * the kubelet (prepare, each container's CDI devices) and a container runtime applies the CDI edits;
 * beside it, what the device plugin's Allocate gives for the same devices.
 */
final class ExtendedResourcePods {

    private ExtendedResourcePods() {}

    /** A pod scheduled onto the harness's node: the special claim as the API holds it (with its UID) and what the scheduler wrote. */
    record Scheduled(ExtendedResourcePod pod, ExtendedResourceClaim claim, ResourceClaim stored) {
        String uid() {
            return stored.getMetadata().getUid();
        }
    }

    /** Extended resource name → its DeviceClass, for every resource {@code target} routes to DRA. */
    static Map<String, String> classes(TargetState target) {
        Map<String, String> out = new TreeMap<>();
        for (ResourceName r : target.dra().resources().resources().keySet()) out.put(r.value(), ExtendedResourceClasses.className(DraNodes.DRIVER, r));
        return out;
    }

    /** Resource → the devices with these IDs (PCI addresses or mdev UUIDs), named as the driver's pool names them, in this order. */
    static Map<String, List<ExtendedResourceScheduler.Candidate>> candidates(TargetState target, Map<String, List<String>> idsByResource) {
        DriverView view = DriverView.of(target);
        Map<String, List<ExtendedResourceScheduler.Candidate>> out = new TreeMap<>();
        idsByResource.forEach((resource, ids) -> {
            List<ExtendedResourceScheduler.Candidate> list = new ArrayList<>();
            for (String id : ids) {
                DraDevice d = view.devices().values().stream().filter(x -> x.device().id().equals(id)).findFirst()
                        .orElseThrow(() -> new AssertionError("no DRA device " + id));
                list.add(new ExtendedResourceScheduler.Candidate(DraNodes.DRIVER, DraNodes.NODE, d.name()));
            }
            out.put(resource, list);
        });
        return out;
    }

    /** The kit's scheduler places {@code pod} on the devices named, and the special claim goes to the API as the scheduler writes it. */
    static Scheduled schedule(KubernetesClient api, TargetState target, ExtendedResourcePod pod, Map<String, List<String>> idsByResource) {
        ExtendedResourceClaim claim = ExtendedResourceScheduler.schedule(pod, classes(target), candidates(target, idsByResource));
        ResourceClaim stored = Claims.create(api, Serialization.unmarshal(claim.claimJson(), ResourceClaim.class));
        return new Scheduled(pod, claim, stored);
    }

    /** The kubelet prepares the claim and starts the containers: what each one gets, applied as a runtime applies CDI. */
    static Map<String, CdiRuntime.Edits> start(DraHarness h, Scheduled s) {
        Map<String, List<String>> cdi = h.kubelet.prepareExtendedResources(s.pod(), s.claim(), s.uid());
        try {
            CdiRuntime runtime = new CdiRuntime(h.settings.cdiDir());
            Map<String, CdiRuntime.Edits> out = new LinkedHashMap<>();
            cdi.forEach((container, ids) -> out.put(container, runtime.edits(ids)));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the device plugin's Allocate gives one container for {@code ids} of {@code resource} on a node serving it that way. */
    static ContainerAllocateResponse allocate(TargetState viaDevicePlugins, String resource, List<String> ids) {
        ResourceView view = ResourceView.allOf(viaDevicePlugins).get(ResourceName.of(resource));
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids)).build());
        return ((RpcOutcome.Granted<AllocateResponse>) outcome).response().getContainerResponses(0);
    }

    /** The same node with every resource on the device plugins. */
    static TargetState viaDevicePlugins(String node) {
        return DraNodes.state(node, DraRouting.NONE);
    }
}
