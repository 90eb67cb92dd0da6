package io.vfiodp.demo;

import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.List;

/**
 * One allocation the demo made, as the kubelet received it.
 *
 * @param deviceIds the IDs the kubelet asked for, in request order
 * @param response  the plugin's answer for that container: env vars and device specs
 */
public record DemoAllocation(ResourceName resource, DeviceKind kind, List<String> deviceIds, ContainerAllocateResponse response) {
    public DemoAllocation {
        deviceIds = List.copyOf(deviceIds);
    }
}
