package io.vfiodp.plugin;

import io.vfiodp.node.VfioPaths;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Allocate RPC as a pure function of a resource view and the kubelet's request.
 *
 * <p>Each container request gets the env var virt-launcher reads ({@code PCI_RESOURCE_<NAME>} or
 * {@code MDEV_PCI_RESOURCE_<NAME>}: the requested IDs in request order) and the VFIO nodes the
 * container needs. Every request is checked before any answer is built, so a bad ID refuses the
 * whole call and nothing is half-allocated.
 */
public final class Allocation {

    static final String PERMISSIONS = "mrw";
    /** In every answer: one immutable message instead of a builder per call. */
    private static final DeviceSpec VFIO_CONTAINER_SPEC = spec(VfioPaths.VFIO_CONTAINER);

    private Allocation() {}

    public static RpcOutcome<AllocateResponse> allocate(ResourceView view, AllocateRequest request) {
        if (request.getContainerRequestsCount() == 0) {
            return RpcOutcome.invalid("Allocate " + view.name() + ": the request has no container requests");
        }
        List<List<ExposedDevice>> perContainer = new ArrayList<>(request.getContainerRequestsCount());
        Map<String, Integer> takenBy = new HashMap<>();
        for (int c = 0; c < request.getContainerRequestsCount(); c++) {
            ContainerAllocateRequest container = request.getContainerRequests(c);
            if (container.getDevicesIdsCount() == 0) {
                return RpcOutcome.invalid("Allocate " + view.name() + ": container request " + c + " lists no device IDs");
            }
            List<ExposedDevice> devices = new ArrayList<>(container.getDevicesIdsCount());
            for (String id : container.getDevicesIdsList()) {
                Integer previous = takenBy.putIfAbsent(id, c);
                if (previous != null) {
                    return RpcOutcome.invalid("Allocate " + view.name() + ": device " + id + " is requested twice"
                            + (previous == c ? " in container request " + c : " (container requests " + previous + " and " + c + ")"));
                }
                Optional<ExposedDevice> device = view.device(id);
                if (device.isEmpty()) {
                    return RpcOutcome.invalid("Allocate " + view.name() + ": device " + id + " "
                            + view.ownerOf(id).map(owner -> "belongs to resource " + owner + ", not to this one").orElse("is unknown to this node"));
                }
                if (device.get().health() instanceof Health.Unhealthy(String reason)) {
                    return RpcOutcome.failedPrecondition("Allocate " + view.name() + ": device " + id + " is unhealthy: " + reason);
                }
                devices.add(device.get());
            }
            perContainer.add(devices);
        }
        AllocateResponse.Builder response = AllocateResponse.newBuilder();
        for (List<ExposedDevice> devices : perContainer) response.addContainerResponses(containerResponse(view, devices));
        return new RpcOutcome.Granted<>(response.build());
    }


    private static ContainerAllocateResponse containerResponse(ResourceView view, List<ExposedDevice> devices) {
        ContainerAllocateResponse.Builder b = ContainerAllocateResponse.newBuilder();
        b.putAllEnvs(KubeVirtEnv.containerEnv(view.envVariable(), view.name(), view.kind(), devices));
        for (String path : VfioPaths.of(devices, view.devNodes())) {
            b.addDevices(path.equals(VfioPaths.VFIO_CONTAINER) ? VFIO_CONTAINER_SPEC : spec(path));
        }
        return b.build();
    }

    private static DeviceSpec spec(String path) {
        return DeviceSpec.newBuilder().setHostPath(path).setContainerPath(path).setPermissions(PERMISSIONS).build();
    }
}
