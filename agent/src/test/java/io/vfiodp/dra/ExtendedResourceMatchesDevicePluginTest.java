package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A VM moves onto DRA unchanged: the virt-launcher pod of a VMI asking {@code gpus[].deviceName}
 * requests the extended resource, the scheduler makes the special claim, and through our driver the
 * container gets exactly the env variables and device nodes the device plugin's Allocate gives for
 * the same devices, as a container runtime applies the CDI devices the kubelet hands it; no variable
 * is set twice. For passthrough GPUs, mdev vGPUs and SR-IOV vGPUs, and on a node of 320 devices.
 */
class ExtendedResourceMatchesDevicePluginTest {

    @TempDir Path root;

    private static ExtendedResourcePod virtLauncher(Map<String, Integer> counts) {
        Map<String, Long> requests = new LinkedHashMap<>(Map.of("cpu", 1L, "memory", 1L, "devices.kubevirt.io/kvm", 1L,
                "devices.kubevirt.io/tun", 1L, "devices.kubevirt.io/vhost-net", 1L));
        counts.forEach((resource, n) -> requests.put(resource, (long) n));
        return new ExtendedResourcePod("vms", "virt-launcher-vm-a-x7k2p", "pod-uid-1",
                List.of(new ExtendedResourcePod.Container("compute", new TreeMap<>(requests))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', value = {
        "t4-numa    | nvidia.com/TU104GL_TESLA_T4 | 0000:1a:00.0",
        "t4-numa    | nvidia.com/TU104GL_TESLA_T4 | 0000:1a:00.0 0000:b1:00.0",
        "t4-vgpu    | nvidia.com/GRID_T4-1Q       | 5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30",
        "t4-vgpu    | nvidia.com/GRID_T4-1Q       | 5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30 c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59",
        "l40s-sriov | nvidia.com/NVIDIA_L40S-4Q   | 0000:41:00.5",
    })
    void aVirtLauncherGetsThroughDraTheEnvAndDeviceNodesAllocateGives(String node, String resource, String idList) {
        List<String> ids = List.of(idList.split(" "));
        ContainerAllocateResponse plugin = ExtendedResourcePods.allocate(ExtendedResourcePods.viaDevicePlugins(node), resource, ids);

        TargetState dra = DraNodes.allDra(node);
        try (DraHarness h = new DraHarness(root).start(dra)) {
            var scheduled = ExtendedResourcePods.schedule(h.api.client(), dra, virtLauncher(Map.of(resource, ids.size())), Map.of(resource, ids));
            CdiRuntime.Edits compute = ExtendedResourcePods.start(h, scheduled).get("compute");

            assertThat(compute.env()).isEqualTo(plugin.getEnvsMap());
            assertThat(compute.hostPaths()).containsExactlyElementsOf(plugin.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
            assertThat(compute.deviceNodes()).allSatisfy(n -> assertThat(n.path()).isEqualTo(n.hostPath()));
            assertThat(compute.overwritten()).isEmpty();
            assertThat(compute.mounts()).isEmpty();
        }
    }

    /** Passthrough GPUs with their HDMI audio, USB and UCSI functions, SR-IOV vGPU VFs and mdevs: 320 devices in 3 slices. */
    @Test
    void onA320DeviceNodeOneVmWithEightGpusOfEachKindGetsWhatTheDevicePluginsGive(@TempDir Path nodeDir) {
        LargeHostTree.write(nodeDir, new LargeHostTree.Shape(256, 2, 32, 2, 16, 0));
        HostSnapshot scanned = new SysfsScanner(nodeDir.resolve("sys"), nodeDir.resolve("dev")).scan();
        TargetState plugins = DraNodes.state(scanned, DraRouting.NONE);
        TargetState dra = DraNodes.state(scanned, DraRouting.ALL);
        assertThat(dra.dra().resources().resources().values().stream().mapToInt(r -> r.devices().size()).sum()).isEqualTo(320);

        Map<String, List<String>> eightOfEach = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (DesiredResource r : dra.dra().resources().resources().values()) {
            List<String> ids = r.devices().stream().skip(r.devices().size() - 8).map(ExposedDevice::id).toList();
            eightOfEach.put(r.name().value(), ids);
            counts.put(r.name().value(), 8);
        }
        assertThat(eightOfEach.keySet().stream().map(n -> dra.dra().profiles().get(eightOfEach.get(n).getFirst()).kind()))
                .containsExactlyInAnyOrder(DraKind.PASSTHROUGH, DraKind.SRIOV_VGPU, DraKind.MDEV);
        Map<String, String> pluginEnv = new LinkedHashMap<>();
        Set<String> pluginNodes = new LinkedHashSet<>();
        for (var e : eightOfEach.entrySet()) {
            ContainerAllocateResponse r = ExtendedResourcePods.allocate(plugins, e.getKey(), e.getValue());
            pluginEnv.putAll(r.getEnvsMap());
            r.getDevicesList().forEach(d -> pluginNodes.add(d.getHostPath()));
        }
        assertThat(pluginEnv.keySet()).anyMatch(k -> k.startsWith("VFIO_DP_COMPANIONS_")).anyMatch(k -> k.startsWith("MDEV_PCI_RESOURCE_"));

        try (DraHarness h = new DraHarness(root).start(dra)) {
            var scheduled = ExtendedResourcePods.schedule(h.api.client(), dra, virtLauncher(counts), eightOfEach);
            CdiRuntime.Edits compute = ExtendedResourcePods.start(h, scheduled).get("compute");

            assertThat(compute.env()).isEqualTo(pluginEnv);
            assertThat(compute.hostPaths()).containsExactlyInAnyOrderElementsOf(pluginNodes);
            assertThat(compute.overwritten()).isEmpty();
        }
    }
}
