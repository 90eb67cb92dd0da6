package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.libvirt.LibvirtTools;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HostdevXmlPrinterTest {

    static String print(DemoAllocation allocation) {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            new HostdevXmlPrinter().print(allocation, out);
        }
        return text.toString();
    }

    /** The XML part of the printout, without the demo's indentation. */
    static String xml(String printed) {
        return printed.lines().skip(1).map(l -> l.substring(6)).collect(Collectors.joining("\n", "", "\n"));
    }

    @Test
    void aPassthroughAllocationPrintsTheGpuWithItsCompanionOnOneSlot() {
        // an Allocate answer exactly as MISSION.md specifies it
        ContainerAllocateResponse response = ContainerAllocateResponse.newBuilder()
                .putEnvs("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0")
                .putEnvs("VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0=0000:3b:00.1")
                .addDevices(DeviceSpec.newBuilder().setHostPath("/dev/vfio/vfio").setContainerPath("/dev/vfio/vfio").setPermissions("mrw"))
                .addDevices(DeviceSpec.newBuilder().setHostPath("/dev/vfio/12").setContainerPath("/dev/vfio/12").setPermissions("mrw"))
                .build();
        String printed = print(new DemoAllocation(ResourceName.of("nvidia.com/TU104GL_TESLA_T4"), DeviceKind.PCI, List.of("0000:3b:00.0"), response));
        assertThat(printed).isEqualTo("""
                    libvirt  what virt-launcher writes for gpus [gpu0] (companions on their GPU's guest slot):
                      <hostdev mode="subsystem" type="pci" managed="no">
                        <source>
                          <address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"/>
                        </source>
                        <alias name="ua-gpu-gpu0"/>
                        <address type="pci" domain="0x0000" bus="0x00" slot="0x10" function="0x0" multifunction="on"/>
                      </hostdev>
                      <hostdev mode="subsystem" type="pci" managed="no">
                        <source>
                          <address domain="0x0000" bus="0x3b" slot="0x00" function="0x1"/>
                        </source>
                        <alias name="ua-gpu-gpu0-fn1"/>
                        <address type="pci" domain="0x0000" bus="0x00" slot="0x10" function="0x1"/>
                      </hostdev>
                """);
        LibvirtTools.assertHostdevsAccepted(xml(printed));
    }

    @Test
    void anMdevAllocationPrintsTheVgpuWithDisplay() {
        ContainerAllocateResponse response = ContainerAllocateResponse.newBuilder()
                .putEnvs("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q", "4b20d080-1b54-4048-85b3-a6a62d165c01")
                .build();
        String printed = print(new DemoAllocation(ResourceName.of("nvidia.com/GRID_T4-1Q"), DeviceKind.MDEV,
                List.of("4b20d080-1b54-4048-85b3-a6a62d165c01"), response));
        assertThat(printed).isEqualTo("""
                    libvirt  what virt-launcher writes for gpus [gpu0] (companions on their GPU's guest slot):
                      <hostdev mode="subsystem" type="mdev" model="vfio-pci" display="on" ramfb="on">
                        <source>
                          <address uuid="4b20d080-1b54-4048-85b3-a6a62d165c01"/>
                        </source>
                        <alias name="ua-gpu-gpu0"/>
                      </hostdev>
                """);
        LibvirtTools.assertHostdevsAccepted(xml(printed));
    }

    @Test
    void anAnswerWithoutTheVariablePrintsWhyNoXmlCanBeWritten() {
        String printed = print(new DemoAllocation(ResourceName.of("nvidia.com/TU104GL_TESLA_T4"), DeviceKind.PCI, List.of("0000:3b:00.0"),
                ContainerAllocateResponse.getDefaultInstance()));
        assertThat(printed).isEqualTo("    hostdev  cannot be written: gpus[0] 'gpu0' (nvidia.com/TU104GL_TESLA_T4): neither "
                + "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4 nor MDEV_PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4 is set in the environment\n");
    }
}
