package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.SnapshotBuilder;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * From scan to Allocate for functions that share an IOMMU group (behind a PCIe-to-PCI bridge, as
 * in the real-kernel tests' guest): the kubelet sees one device, Allocate names one address to
 * KubeVirt and the others as companions, and hands out the group's node alone.
 */
class SharedGroupAllocationTest {

    private static final ResourceName EDU = ResourceName.of("qemu.test/edu");

    private final ResourceView view;

    SharedGroupAllocationTest() throws Exception {
        SnapshotBuilder b = new SnapshotBuilder();
        b.fn("0000:03:00.0").id(0x1b36, 0x000e).cls(0x060400).driver(null).group(11);
        b.fn("0000:04:01.0").id(0x1234, 0x11e8).cls(0x00ff00).group(11);
        b.fn("0000:04:02.0").id(0x1234, 0x11e8).cls(0x00ff00).group(11);
        b.fn("0000:01:00.0").id(0x1234, 0x11e8).cls(0x00ff00).group(9);
        HostSnapshot snapshot = b.build();
        PermittedHostDevices config = new PermittedHostDevices(List.of(new PciHostDevice("1234:11e8", EDU.value(), true)), List.of());
        PciIds ids = PciIds.parse("test pci.ids", "1234  QEMU\n".getBytes(StandardCharsets.UTF_8));
        TargetState target = new TargetState(PolicyEngine.evaluate(snapshot, Optional.of(config), ids).desiredState(), snapshot.devNodes());
        view = ResourceView.allOf(target).get(EDU);
    }

    private static AllocateRequest request(String... ids) {
        return AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of(ids))).build();
    }

    @Test
    void theKubeletSeesOneDevicePerGroup() {
        assertThat(view.devices().keySet()).containsExactly("0000:01:00.0", "0000:04:01.0");
    }

    @Test
    void allocateNamesTheGroupsDeviceToKubeVirtAndItsMatesAsCompanions() {
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request("0000:04:01.0"));

        ContainerAllocateResponse c = ((RpcOutcome.Granted<AllocateResponse>) outcome).response().getContainerResponses(0);
        assertThat(c.getEnvsMap()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "PCI_RESOURCE_QEMU_TEST_EDU", "0000:04:01.0",
                "VFIO_DP_COMPANIONS_QEMU_TEST_EDU", "0000:04:01.0=0000:04:02.0"));
        assertThat(c.getDevicesList()).extracting(DeviceSpec::getHostPath).containsExactly("/dev/vfio/vfio", "/dev/vfio/11");
    }

    @Test
    void aGroupMateCannotBeAllocatedOnItsOwn() {
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request("0000:04:02.0"));

        assertThat(outcome).isEqualTo(RpcOutcome.invalid("Allocate qemu.test/edu: device 0000:04:02.0 is unknown to this node"));
    }
}
