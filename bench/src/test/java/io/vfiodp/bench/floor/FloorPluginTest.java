package io.vfiodp.bench.floor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FloorPluginTest {

    private static final Path SYS = SysfsFixtures.sys("t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";

    @Test
    void theScanFindsTheFunctionsOfTheGivenIdsOnVfioPciWithTheirGroups() throws Exception {
        assertThat(FloorPlugin.scan(SYS, "10DE:1EB8")).containsExactly(Map.entry("0000:1a:00.0", "24"), Map.entry("0000:1b:00.0", "25"),
                Map.entry("0000:b1:00.0", "64"), Map.entry("0000:b2:00.0", "65"));
    }

    @Test
    void theListHoldsEveryDeviceHealthy() {
        FloorPlugin plugin = new FloorPlugin(Map.of("0000:1b:00.0", "25", "0000:1a:00.0", "24"), T4);

        assertThat(plugin.list().getDevicesList()).containsExactly(Device.newBuilder().setID("0000:1a:00.0").setHealth("Healthy").build(),
                Device.newBuilder().setID("0000:1b:00.0").setHealth("Healthy").build());
    }

    @Test
    void allocateHandsOutTheContainerNodeEachGroupNodeOnceAndTheIds() {
        FloorPlugin plugin = new FloorPlugin(Map.of("0000:1a:00.0", "24", "0000:1a:00.1", "24", "0000:1b:00.0", "25"), T4);

        AllocateResponse answer = plugin.allocate(AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder()
                .addAllDevicesIds(List.of("0000:1a:00.0", "0000:1a:00.1", "0000:1b:00.0"))).build());

        assertThat(answer.getContainerResponsesList()).containsExactly(ContainerAllocateResponse.newBuilder()
                .addDevices(node("/dev/vfio/vfio")).addDevices(node("/dev/vfio/24")).addDevices(node("/dev/vfio/25"))
                .putEnvs("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:1a:00.0,0000:1a:00.1,0000:1b:00.0").build());
    }

    @Test
    void anUnknownDeviceIsRefusedByName() {
        FloorPlugin plugin = new FloorPlugin(Map.of("0000:1a:00.0", "24"), T4);

        assertThatThrownBy(() -> plugin.allocate(AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder()
                .addDevicesIds("0000:99:00.0")).build())).isInstanceOf(IllegalArgumentException.class).hasMessage("no device 0000:99:00.0");
    }

    private static DeviceSpec node(String path) {
        return DeviceSpec.newBuilder().setContainerPath(path).setHostPath(path).setPermissions("rw").build();
    }
}
