package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the layout step makes of the kubelet's PodResources. */
class KubeletAllocationsTest {

    @Test
    void theDevicePluginDevicesOfEveryContainerAreInUse() {
        Allocated a = new KubeletAllocations(() -> new PodResourcesReading.Listed(List.of(
                new HeldDevice.ByPlugin("vms/vm1", "compute", "nvidia.com/GRID_T4-1Q", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27"),
                new HeldDevice.ByPlugin("vms/vm1", "compute", "nvidia.com/NVIDIA_L40S-4Q", "0000:41:00.4")))).get();

        assertThat(a).isEqualTo(new Allocated.Known(Set.of("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "0000:41:00.4")));
    }

    @Test
    void theVgpusDraPreparedForAClaimAreInUseToo() {
        Allocated a = new KubeletAllocations(() -> new PodResourcesReading.Listed(List.of(
                new HeldDevice.ByClaim("vms/vm2", "compute", "vms/vm2-gpu", "vfio-device-plugin.io", "node-a",
                        "mdev-7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13"),
                new HeldDevice.ByClaim("vms/vm3", "compute", "vms/vm3-gpu", "vfio-device-plugin.io", "node-a", "pci-0000-41-00-5")))).get();

        assertThat(a).isEqualTo(new Allocated.Known(Set.of("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "0000:41:00.5")));
    }

    @Test
    void anUnreadableApiProvesNothingFree() {
        Allocated a = new KubeletAllocations(() -> new PodResourcesReading.Unreadable("kubelet restarting")).get();

        assertThat(a).isEqualTo(new Allocated.Unknown("kubelet restarting"));
        assertThat(a.mayBeInUse("0000:41:00.6")).isTrue();
    }
}
