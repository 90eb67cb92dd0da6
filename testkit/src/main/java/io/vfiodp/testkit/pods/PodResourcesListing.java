package io.vfiodp.testkit.pods;

import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.podresources.v1.CDIDevice;
import io.vfiodp.proto.podresources.v1.ClaimResource;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.DynamicResource;
import java.util.List;
import java.util.Map;

/**
 * One container as the kubelet's PodResources {@code List} writes it ({@code server_v1.go}): its
 * device-plugin devices by resource, and for each claim it uses every device the claim holds
 * ({@code GetDynamicResources}), with their CDI devices.
 */
final class PodResourcesListing {

    private PodResourcesListing() {}

    static ContainerResources container(String name, Map<String, List<String>> byResource, List<NodePods.PreparedClaim> claims) {
        ContainerResources.Builder c = ContainerResources.newBuilder().setName(name);
        byResource.forEach((resource, ids) -> c.addDevices(ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(ids)));
        for (NodePods.PreparedClaim claim : claims) {
            DynamicResource.Builder d = DynamicResource.newBuilder().setClaimName(claim.claim().getName())
                    .setClaimNamespace(claim.claim().getNamespace());
            for (Device device : claim.devices()) {
                ClaimResource.Builder r = ClaimResource.newBuilder().setDriverName(claim.driver()).setPoolName(device.getPoolName())
                        .setDeviceName(device.getDeviceName());
                device.getCdiDeviceIdsList().forEach(id -> r.addCdiDevices(CDIDevice.newBuilder().setName(id)));
                d.addClaimResources(r);
            }
            c.addDynamicResources(d);
        }
        return c.build();
    }
}
