package io.vfiodp.testkit.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which CDI devices of the special claim the kubelet hands each container, as its DRA manager's GetResources does. */
class ContainerCdiTest {

    private static final String GPU = "example.com/gpu";
    private static final ExtendedResourcePod.Container A = new ExtendedResourcePod.Container("a", new TreeMap<>(Map.of(GPU, 2L)));
    private static final ExtendedResourcePod.Container B = new ExtendedResourcePod.Container("b", new TreeMap<>(Map.of(GPU, 1L)));
    private static final ExtendedResourceClaim CLAIM = ExtendedResourceScheduler.schedule(new ExtendedResourcePod("vms", "p", "u", List.of(A, B)),
            Map.of(GPU, "gpu.example.com"), Map.of(GPU, List.of(new ExtendedResourceScheduler.Candidate("drv", "pool", "d0"),
                    new ExtendedResourceScheduler.Candidate("drv", "pool", "d1"), new ExtendedResourceScheduler.Candidate("drv", "pool", "d2"))));

    private static Device device(String request, String name, String... cdi) {
        return Device.newBuilder().addRequestNames(request).setPoolName("pool").setDeviceName(name).addAllCdiDeviceIds(List.of(cdi)).build();
    }

    @Test
    void eachContainerGetsTheCdiDevicesOfItsOwnRequestOnly() {
        NodePrepareResourceResponse prepared = NodePrepareResourceResponse.newBuilder().addDevices(device("container-0-request-0", "d0", "drv/x=d0"))
                .addDevices(device("container-0-request-0", "d1", "drv/x=d1")).addDevices(device("container-1-request-0", "d2", "drv/x=d2")).build();

        assertThat(DraKubeletSimulator.cdiDevices(prepared, CLAIM, A)).containsExactly("drv/x=d0", "drv/x=d1");
        assertThat(DraKubeletSimulator.cdiDevices(prepared, CLAIM, B)).containsExactly("drv/x=d2");
    }

    @Test
    void anIdOnEveryDeviceOfARequestReachesTheContainerOncePerDevice() {
        NodePrepareResourceResponse prepared = NodePrepareResourceResponse.newBuilder().addDevices(device("container-0-request-0", "d0", "drv/x=env"))
                .addDevices(device("container-0-request-0", "d1", "drv/x=env")).build();

        assertThat(DraKubeletSimulator.cdiDevices(prepared, CLAIM, A)).containsExactly("drv/x=env", "drv/x=env");
    }

    @Test
    void aDeviceListingNoRequestGoesToEveryContainer() {
        NodePrepareResourceResponse prepared = NodePrepareResourceResponse.newBuilder()
                .addDevices(Device.newBuilder().setPoolName("pool").setDeviceName("d0").addCdiDeviceIds("drv/x=any")).build();

        assertThat(DraKubeletSimulator.cdiDevices(prepared, CLAIM, A)).containsExactly("drv/x=any");
        assertThat(DraKubeletSimulator.cdiDevices(prepared, CLAIM, B)).containsExactly("drv/x=any");
    }
}
