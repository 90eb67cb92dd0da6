package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vfiodp.plugin.Allocation;
import io.vfiodp.plugin.ResourceView;
import io.vfiodp.plugin.RpcOutcome;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A VM gets the same device either way: the device plugin's Allocate (env variable, device specs)
 * and DRA's prepare (metadata file, CDI device nodes) give virt-launcher the same host device and
 * the container the same VFIO nodes, for each kind of device.
 */
class DraMatchesDevicePluginTest {

    @TempDir Path root;
    @TempDir Path container;

    @ParameterizedTest(name = "{0} {2}")
    @CsvSource({
        "t4-numa, nvidia.com/TU104GL_TESLA_T4, 0000:1a:00.0, pci-0000-1a-00-0",
        "t4-vgpu, nvidia.com/GRID_T4-1Q, 5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30, mdev-5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30",
        "l40s-sriov, nvidia.com/NVIDIA_L40S-4Q, 0000:41:00.5, pci-0000-41-00-5",
    })
    void theSameDeviceAndTheSameNodes(String node, String resource, String id, String draDevice) throws IOException {
        ResourceView view = ResourceView.allOf(DraNodes.state(node, DraRouting.NONE)).get(ResourceName.of(resource));
        RpcOutcome<AllocateResponse> allocated = Allocation.allocate(view, AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(id)).build());
        ContainerAllocateResponse plugin = ((RpcOutcome.Granted<AllocateResponse>) allocated).response().getContainerResponses(0);
        String env = plugin.getEnvsOrThrow(KubeVirtEnv.variableName(view.kind(), view.name()));
        assertThat(env).isEqualTo(id);

        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra(node))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours(draDevice)));
            NodePrepareResourceResponse r = h.kubelet.prepare(DraKubeletSimulator.claim("vms", "gpu-claim", c.getMetadata().getUid()))
                    .getClaimsOrThrow(c.getMetadata().getUid());
            List<String> ids = new ArrayList<>();
            r.getDevicesList().forEach(d -> ids.addAll(d.getCdiDeviceIdsList()));
            CdiRuntime.Edits edits = new CdiRuntime(h.settings.cdiDir()).edits(ids);
            CdiRuntime.mountInto(container, edits);

            assertThat(edits.deviceNodes()).extracting(CdiRuntime.DeviceNode::hostPath)
                    .containsExactlyElementsOf(plugin.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
            KubeVirtDra.HostDevice viaDra = KubeVirtDra.gpu(container, List.of(KubeVirtDra.VmiClaim.named("gpu", "gpu-claim")), "gpu", "gpu");
            assertThat(viaDra).isEqualTo(id.contains("-") ? new KubeVirtDra.Mdev(id)
                    : new KubeVirtDra.Pci("0x" + id.substring(0, 4), "0x" + id.substring(5, 7), "0x" + id.substring(8, 10), "0x" + id.substring(11)));
        }
    }
}
