package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static io.vfiodp.plugin.Devices.mdev;
import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.Devices.view;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.NUMANode;
import io.vfiodp.proto.deviceplugin.v1beta1.TopologyInfo;
import org.junit.jupiter.api.Test;

class ResourceViewTest {

    private static final String R = "nvidia.com/TU104GL_TESLA_T4";

    @Test
    void theEnvVariableIsKubeVirtsNameForTheResourceAndItsKind() {
        assertThat(view(state(resource(R, pci("0000:3b:00.0", 12, 1))), R).envVariable()).isEqualTo("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4");
        assertThat(view(state(resource("nvidia.com/GRID_T4-2Q", mdev("0b4c5ae0-6e4a-4ec1-8e2f-2b8d6bd5e5c1", "0000:3b:00.0", 12, 0))),
                "nvidia.com/GRID_T4-2Q").envVariable()).isEqualTo("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-2Q");
    }

    @Test
    void listAndWatchCarriesIdHealthAndNumaNode() {
        ResourceView v = view(state(resource(R, pci("0000:3b:00.0", 12, 1))), R);

        assertThat(v.listAndWatchResponse().getDevicesList()).containsExactly(Device.newBuilder().setID("0000:3b:00.0").setHealth("Healthy")
                .setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(1))).build());
    }

    @Test
    void topologyIsOmittedWithoutNumaNode() {
        ResourceView v = view(state(resource(R, pci("0000:3b:00.0", 12, -1))), R);

        assertThat(v.listAndWatchResponse().getDevices(0).hasTopology()).isFalse();
    }

    @Test
    void unhealthyDeviceIsListedAsUnhealthy() {
        ResourceView v = view(state(resource(R, pci("0000:3b:00.0", 12, 0).withHealth(Health.unhealthy("unbound from vfio-pci")))), R);

        assertThat(v.listAndWatchResponse().getDevices(0).getHealth()).isEqualTo("Unhealthy");
    }

    @Test
    void viewKnowsWhichResourceOwnsAForeignDevice() {
        TargetState node = state(resource(R, pci("0000:3b:00.0", 12, 0)), resource("nvidia.com/GA100", pci("0000:86:00.0", 60, 1)));

        assertThat(view(node, R).ownerOf("0000:86:00.0")).contains(ResourceName.of("nvidia.com/GA100"));
        assertThat(view(node, R).ownerOf("0000:99:00.0")).isEmpty();
    }
}
