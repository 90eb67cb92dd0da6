package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.plugin.ServedPlugins;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.node.TargetState;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole way: the plugin's Allocate, called by the kubelet simulator over its socket, gives
 * the compute container its variables; the helper turns them into hostdevs whose sources are
 * exactly the allocated devices, in the VMI's order.
 */
class AllocateRoundTripTest {

    static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    static final String VGPU = "nvidia.com/GRID_T4-1Q";
    static final String UUID_A = "4b20d080-1b54-4048-85b3-a6a62d165c01";
    static final String UUID_B = "4b20d080-1b54-4048-85b3-a6a62d165c02";

    @TempDir
    Path pluginDir;

    static ExposedDevice pci(String address, int group, String... companions) {
        return new ExposedDevice(address, DeviceKind.PCI, PciAddress.parse(address), group, 0,
                java.util.Arrays.stream(companions).map(PciAddress::parse).toList(), Optional.empty(), List.of(), Health.HEALTHY);
    }

    static ExposedDevice mdev(String uuid, String parent, int group) {
        return new ExposedDevice(uuid, DeviceKind.MDEV, PciAddress.parse(parent), group, 0, List.of(), Optional.empty(), List.of(), Health.HEALTHY);
    }

    static final TargetState NODE = new TargetState(DesiredState.of(List.of(
            new DesiredResource(ResourceName.of(T4), DeviceKind.PCI,
                    List.of(pci("0000:3b:00.0", 12, "0000:3b:00.1"), pci("0000:af:00.0", 87))),
            new DesiredResource(ResourceName.of(VGPU), DeviceKind.MDEV,
                    List.of(mdev(UUID_A, "0000:86:00.0", 60), mdev(UUID_B, "0000:86:00.0", 60))))),
            DevNodes.of(true, Set.of(12, 60, 87), false, Set.of()));

    static final String VMI = """
            {"metadata":{"annotations":{"vfio-device-plugin.io/companions":"true"}},
             "spec":{"domain":{"devices":{"gpus":[
               {"name":"gpu0","deviceName":"nvidia.com/TU104GL_TESLA_T4"},
               {"name":"vgpu","deviceName":"nvidia.com/GRID_T4-1Q"},
               {"name":"gpu1","deviceName":"nvidia.com/TU104GL_TESLA_T4"}]}}}}
            """;

    /** Host sources of the hostdevs in document order: PCI addresses as DDDD:BB:SS.F, mdevs as UUIDs. */
    static List<String> sources(String xml) {
        Pattern source = Pattern.compile("<source>\\s*<address (?:domain=\"0x(\\p{XDigit}{4})\" bus=\"0x(\\p{XDigit}{2})\" "
                + "slot=\"0x(\\p{XDigit}{2})\" function=\"0x(\\p{XDigit})\"|uuid=\"([^\"]+)\")");
        List<String> out = new ArrayList<>();
        Matcher m = source.matcher(xml);
        while (m.find()) {
            out.add(m.group(5) != null ? m.group(5) : m.group(1) + ":" + m.group(2) + ":" + m.group(3) + "." + m.group(4));
        }
        return out;
    }

    @Test
    void theHostdevSourcesAreTheDevicesAllocateHandedOutInKubeVirtsOrderWithCompanions() throws Exception {
        List<String> t4Allocated = List.of("0000:af:00.0", "0000:3b:00.0");
        List<String> vgpuAllocated = List.of(UUID_B);
        Map<String, String> computeContainerEnv = new HashMap<>();
        try (KubeletSimulator kubelet = KubeletSimulator.start(pluginDir);
             ServedPlugins plugin = ServedPlugins.start(PluginSettings.of(pluginDir), Duration.ofHours(1), () -> NODE)) {
            kubelet.awaitRegistrations(List.of(T4, VGPU), 1, Duration.ofSeconds(10));
            ContainerAllocateResponse t4 = kubelet.allocate(T4, List.of(t4Allocated)).getContainerResponses(0);
            ContainerAllocateResponse vgpu = kubelet.allocate(VGPU, List.of(vgpuAllocated)).getContainerResponses(0);
            // the kubelet gives the container the union of every plugin's envs
            computeContainerEnv.putAll(t4.getEnvsMap());
            computeContainerEnv.putAll(vgpu.getEnvsMap());
        }

        PlanOutcome plan = new HostdevPlanner().plan(LauncherEnv.of(computeContainerEnv), Optional.of(VmiDevices.parse(VMI)), false, KubeVirtRelease.V1_9);
        assertThat(plan).isInstanceOf(PlanOutcome.Planned.class);
        XmlOutcome xml = new HostdevXml().elements(((PlanOutcome.Planned) plan).hostdevs());
        assertThat(xml).isInstanceOf(XmlOutcome.Written.class);
        String hostdevs = ((XmlOutcome.Written) xml).xml();

        // gpu0 takes the first T4 the kubelet allocated, gpu1 the second T4 and its companion, the vGPU its UUID: PCI
        // hostdevs before mdevs, as virt-launcher writes a list (gpu/hostdev.go)
        assertThat(sources(hostdevs)).containsExactly("0000:af:00.0", "0000:3b:00.0", "0000:3b:00.1", UUID_B);
        assertThat(hostdevs).contains("<alias name=\"ua-gpu-gpu0\"/>", "<alias name=\"ua-gpu-vgpu\"/>",
                "<alias name=\"ua-gpu-gpu1\"/>", "<alias name=\"ua-gpu-gpu1-fn1\"/>");
        LibvirtTools.assertHostdevsAccepted(hostdevs);
    }
}
