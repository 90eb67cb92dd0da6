package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static io.vfiodp.plugin.Devices.mdev;
import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.Devices.view;
import static io.vfiodp.plugin.Devices.withCdev;
import static io.vfiodp.plugin.Devices.withCompanions;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AllocationTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final ExposedDevice GPU_A = pci("0000:3b:00.0", 12, 0);
    private static final ExposedDevice GPU_B = pci("0000:af:00.0", 87, 1);
    private static final ExposedDevice GPU_C = pci("0000:d8:00.0", 12, 1);
    private static final ExposedDevice OTHER = pci("0000:86:00.0", 60, 1);

    private static final TargetState NODE = state(resource(T4, GPU_A, GPU_B, GPU_C), resource("nvidia.com/GA100", OTHER));

    private static AllocateRequest request(List<String>... containers) {
        AllocateRequest.Builder b = AllocateRequest.newBuilder();
        for (List<String> ids : containers) b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
        return b.build();
    }

    @SafeVarargs
    private static AllocateResponse granted(ResourceView view, List<String>... containers) {
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request(containers));
        assertThat(outcome).isInstanceOf(RpcOutcome.Granted.class);
        return ((RpcOutcome.Granted<AllocateResponse>) outcome).response();
    }

    @SafeVarargs
    private static RpcOutcome.Refused<AllocateResponse> refused(ResourceView view, List<String>... containers) {
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request(containers));
        assertThat(outcome).isInstanceOf(RpcOutcome.Refused.class);
        return (RpcOutcome.Refused<AllocateResponse>) outcome;
    }

    private static DeviceSpec spec(String path) {
        return DeviceSpec.newBuilder().setContainerPath(path).setHostPath(path).setPermissions("mrw").build();
    }

    @Test
    void pciEnvVarListsTheRequestedAddressesInRequestOrder() {
        ContainerAllocateResponse c = granted(view(NODE, T4), List.of("0000:af:00.0", "0000:3b:00.0")).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsExactly(Map.entry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:af:00.0,0000:3b:00.0"));
    }

    @Test
    void deviceSpecsAreTheVfioContainerAndEachGroupNodeWithHostPathEqualToContainerPath() {
        ContainerAllocateResponse c = granted(view(NODE, T4), List.of("0000:af:00.0", "0000:3b:00.0")).getContainerResponses(0);

        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/87"), spec("/dev/vfio/12"));
        assertThat(c.getMountsList()).isEmpty();
    }

    @Test
    void devicesSharingAGroupGetOneGroupNode() {
        ContainerAllocateResponse c = granted(view(NODE, T4), List.of("0000:3b:00.0", "0000:d8:00.0")).getContainerResponses(0);

        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/12"));
    }

    @Test
    void eachContainerRequestGetsOnlyItsOwnDevices() {
        AllocateResponse r = granted(view(NODE, T4), List.of("0000:3b:00.0"), List.of("0000:af:00.0"));

        assertThat(r.getContainerResponsesList()).hasSize(2);
        assertThat(r.getContainerResponses(0).getEnvsMap()).containsEntry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0");
        assertThat(r.getContainerResponses(0).getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/12"));
        assertThat(r.getContainerResponses(1).getEnvsMap()).containsEntry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:af:00.0");
        assertThat(r.getContainerResponses(1).getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/87"));
    }

    @Test
    void mdevResourceUsesTheMdevPrefixAndTheUuidsAndTheirOwnGroups() {
        ExposedDevice one = mdev("a297db4a-f4c2-11e6-90f6-d3b88d6c9525", "0000:3b:00.0", 101, 0);
        ExposedDevice two = mdev("b2a1c3d4-0000-4000-8000-000000000001", "0000:3b:00.0", 102, 0);
        TargetState node = state(resource("nvidia.com/GRID_T4-1Q", one, two));

        ContainerAllocateResponse c = granted(view(node, "nvidia.com/GRID_T4-1Q"), List.of(two.id(), one.id())).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsExactly(Map.entry("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q",
                "b2a1c3d4-0000-4000-8000-000000000001,a297db4a-f4c2-11e6-90f6-d3b88d6c9525"));
        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/102"), spec("/dev/vfio/101"));
    }

    @Test
    void companionsGoToTheirOwnVariableInTheSameOrderAndNeverIntoTheMainOne() {
        ExposedDevice gpu1 = withCompanions(pci("0000:01:00.0", 1, 0), "0000:01:00.1", "0000:01:00.2");
        ExposedDevice gpu2 = pci("0000:02:00.0", 2, 0);
        TargetState node = state(resource("nvidia.com/TU106_GEFORCE_RTX_2060_REV__A", gpu1, gpu2));

        ContainerAllocateResponse c = granted(view(node, "nvidia.com/TU106_GEFORCE_RTX_2060_REV__A"),
                List.of("0000:02:00.0", "0000:01:00.0")).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnly(
                Map.entry("PCI_RESOURCE_NVIDIA_COM_TU106_GEFORCE_RTX_2060_REV__A", "0000:02:00.0,0000:01:00.0"),
                Map.entry("VFIO_DP_COMPANIONS_NVIDIA_COM_TU106_GEFORCE_RTX_2060_REV__A", "0000:02:00.0=,0000:01:00.0=0000:01:00.1+0000:01:00.2"));
        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/2"), spec("/dev/vfio/1"));
    }

    @Test
    void noCompanionsVariableWhenNoAllocatedDeviceHasCompanions() {
        ExposedDevice gpu1 = withCompanions(pci("0000:01:00.0", 1, 0), "0000:01:00.1");
        ExposedDevice gpu2 = pci("0000:02:00.0", 2, 0);
        TargetState node = state(resource("nvidia.com/X", gpu1, gpu2));

        ContainerAllocateResponse c = granted(view(node, "nvidia.com/X"), List.of("0000:02:00.0")).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnlyKeys("PCI_RESOURCE_NVIDIA_COM_X");
    }

    @Test
    void iommufdNodesAreAddedWhenTheHostHasThem() {
        ExposedDevice gpu = withCdev(pci("0000:3b:00.0", 12, 0), "vfio3");
        TargetState node = state(DevNodes.of(true, Set.of(12), true, Set.of("vfio3")), resource(T4, gpu));

        ContainerAllocateResponse c = granted(view(node, T4), List.of("0000:3b:00.0")).getContainerResponses(0);

        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/12"), spec("/dev/iommu"),
                spec("/dev/vfio/devices/vfio3"));
    }

    @Test
    void iommufdNodesAreLeftOutWhenTheDevRootDidNotShowThem() {
        ExposedDevice gpu = withCdev(pci("0000:3b:00.0", 12, 0), "vfio3");
        TargetState node = state(DevNodes.of(true, Set.of(12), false, Set.of()), resource(T4, gpu));

        ContainerAllocateResponse c = granted(view(node, T4), List.of("0000:3b:00.0")).getContainerResponses(0);

        assertThat(c.getDevicesList()).containsExactly(spec("/dev/vfio/vfio"), spec("/dev/vfio/12"));
    }

    @Test
    void unknownIdIsInvalidArgumentNamingTheId() {
        var r = refused(view(NODE, T4), List.of("0000:3b:00.0", "0000:99:00.0"));

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:99:00.0 is unknown to this node");
    }

    @Test
    void idOfAnotherResourceIsInvalidArgumentNamingBoth() {
        var r = refused(view(NODE, T4), List.of("0000:86:00.0"));

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:86:00.0 belongs to resource nvidia.com/GA100, not to this one");
    }

    @Test
    void duplicateIdInOneContainerIsInvalidArgument() {
        var r = refused(view(NODE, T4), List.of("0000:3b:00.0", "0000:3b:00.0"));

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:3b:00.0 is requested twice in container request 0");
    }

    @Test
    void sameIdInTwoContainersIsInvalidArgument() {
        var r = refused(view(NODE, T4), List.of("0000:3b:00.0"), List.of("0000:af:00.0", "0000:3b:00.0"));

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:3b:00.0 is requested twice (container requests 0 and 1)");
    }

    @Test
    void emptyContainerRequestIsInvalidArgument() {
        var r = refused(view(NODE, T4), List.of("0000:3b:00.0"), List.of());

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: container request 1 lists no device IDs");
    }

    @Test
    void requestWithoutContainersIsInvalidArgument() {
        var r = refused(view(NODE, T4));

        assertThat(r.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: the request has no container requests");
    }

    @Test
    void unhealthyDeviceIsFailedPreconditionWithTheReason() {
        TargetState node = state(resource(T4, GPU_A, GPU_B.withHealth(Health.unhealthy("/dev/vfio/87 is missing"))));

        var r = refused(view(node, T4), List.of("0000:3b:00.0"), List.of("0000:af:00.0"));

        assertThat(r.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(r.message()).isEqualTo("Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:af:00.0 is unhealthy: /dev/vfio/87 is missing");
    }
}
