package io.vfiodp.holders;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Who holds each device, from a PodResources reading, the pods the API lists and what the node
 * offers: device plugins (PCI, mdev, SR-IOV vGPU) by device ID, DRA claims by the device's name in
 * this driver's pool, several ways at once shown as they are, and nothing shown free that cannot be.
 */
class AttributionTest {

    static final String DRIVER = "vfio-device-plugin.io";
    static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
    static final ResourceName GRID = ResourceName.of("nvidia.com/GRID_T4-1Q");
    static final ResourceName L40S = ResourceName.of("nvidia.com/NVIDIA_L40S-4Q");
    static final String MDEV = "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";

    static final OfferedDevice PCI_A = new OfferedDevice("0000:1a:00.0", T4, Route.DEVICE_PLUGIN, "pci-0000-1a-00-0", Health.HEALTHY);
    static final OfferedDevice PCI_B = new OfferedDevice("0000:1b:00.0", T4, Route.DRA, "pci-0000-1b-00-0", Health.HEALTHY);
    static final OfferedDevice MDEV_A = new OfferedDevice(MDEV, GRID, Route.DEVICE_PLUGIN, "mdev-" + MDEV, Health.HEALTHY);
    static final OfferedDevice VF = new OfferedDevice("0000:41:00.4", L40S, Route.DEVICE_PLUGIN, "pci-0000-41-00-4", Health.HEALTHY);
    static final List<OfferedDevice> OFFERED = List.of(PCI_A, PCI_B, MDEV_A, VF);

    static final Holder.Vmi VMI_1 = new Holder.Vmi("vm1", "vmi-uid-1", Optional.of("vm1"));
    static final PodDetails PODS = new PodDetails.Known(Map.of("vms/virt-launcher-vm1-x7k2p", new PodDetails.Pod("pod-uid-1", Optional.of(VMI_1)),
            "vms/plain", new PodDetails.Pod("pod-uid-2", Optional.empty())));

    static HeldDevice plugin(String pod, String container, ResourceName resource, String id) {
        return new HeldDevice.ByPlugin(pod, container, resource.value(), id);
    }

    static HeldDevice claim(String pod, String container, String claim, String device) {
        return new HeldDevice.ByClaim(pod, container, claim, DRIVER, "node-a", device);
    }

    static Holding holding(HolderView view, OfferedDevice d) {
        return view.holding(d.id()).orElseThrow();
    }

    @Test
    void aDeviceNoPodListsIsFree() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of()), PODS, OFFERED, DRIVER);

        assertThat(view.entries()).extracting(HolderView.Entry::holding).containsOnly(Holding.FREE);
        assertThat(view.unknownHolders()).isEmpty();
        assertThat(view.unknownVmis()).isEmpty();
    }

    @Test
    void devicePluginDevicesArePodsAndContainersWithTheirVmiAndVm() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(
                plugin("vms/virt-launcher-vm1-x7k2p", "compute", T4, PCI_A.id()),
                plugin("vms/plain", "compute", GRID, MDEV),
                plugin("vms/plain", "compute", L40S, VF.id()))), PODS, OFFERED, DRIVER);

        assertThat(holding(view, PCI_A)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "virt-launcher-vm1-x7k2p", "compute",
                new Holder.Via.Plugin(T4.value()), Optional.of(VMI_1)))));
        assertThat(holding(view, MDEV_A)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "plain", "compute",
                new Holder.Via.Plugin(GRID.value()), Optional.empty()))));
        assertThat(holding(view, VF)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "plain", "compute",
                new Holder.Via.Plugin(L40S.value()), Optional.empty()))));
        assertThat(holding(view, PCI_B)).isEqualTo(Holding.FREE);
    }

    @Test
    void aClaimsDeviceIsFoundByItsNameInThePool() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(
                claim("vms/virt-launcher-vm1-x7k2p", "compute", "vms/virt-launcher-vm1-x7k2p-extended-resources-abcde", "pci-0000-1b-00-0"))),
                PODS, OFFERED, DRIVER);

        assertThat(holding(view, PCI_B)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "virt-launcher-vm1-x7k2p", "compute",
                new Holder.Via.Claim("vms", "virt-launcher-vm1-x7k2p-extended-resources-abcde"), Optional.of(VMI_1)))));
    }

    @Test
    void anotherDriversOrAnotherPluginsDevicesAreNotThisNodes() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(
                new HeldDevice.ByClaim("vms/plain", "compute", "vms/c", "gpu.nvidia.com", "node-a", "pci-0000-1b-00-0"),
                new HeldDevice.ByPlugin("vms/plain", "compute", "intel.com/sriov", "0000:5e:00.1"))), PODS, OFFERED, DRIVER);

        assertThat(view.entries()).extracting(HolderView.Entry::holding).containsOnly(Holding.FREE);
    }

    @Test
    void aPodWithSeveralGpuContainersShowsEachContainerWithItsDevice() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(plugin("vms/plain", "a", T4, PCI_A.id()),
                plugin("vms/plain", "b", T4, PCI_B.id()))), PODS, OFFERED, DRIVER);

        assertThat(holding(view, PCI_A)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "plain", "a", new Holder.Via.Plugin(T4.value()),
                Optional.empty()))));
        assertThat(holding(view, PCI_B)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "plain", "b", new Holder.Via.Plugin(T4.value()),
                Optional.empty()))));
    }

    @Test
    void aClaimTwoPodsShareShowsBothPods() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(claim("vms/plain", "compute", "vms/shared", "pci-0000-1b-00-0"),
                claim("vms/virt-launcher-vm1-x7k2p", "compute", "vms/shared", "pci-0000-1b-00-0"))), PODS, OFFERED, DRIVER);

        assertThat(holding(view, PCI_B)).isInstanceOfSatisfying(Holding.Held.class, h -> assertThat(h.holders())
                .extracting(Holder::podName).containsExactly("vms/plain", "vms/virt-launcher-vm1-x7k2p"));
    }

    @Test
    void aDeviceInTwoViewsDuringASwitchShowsBothWays() {
        // a pod still holds it through the device plugin while a claim was prepared for it: the kubelet lists both
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(plugin("vms/plain", "compute", T4, PCI_A.id()),
                claim("vms/virt-launcher-vm1-x7k2p", "compute", "vms/gpu", "pci-0000-1a-00-0"))), PODS, OFFERED, DRIVER);

        assertThat(holding(view, PCI_A)).isInstanceOfSatisfying(Holding.Held.class, h -> assertThat(h.holders()).extracting(Holder::via)
                .containsExactly(new Holder.Via.Plugin(T4.value()), new Holder.Via.Claim("vms", "gpu")));
    }

    @Test
    void withoutPodResourcesEveryDeviceIsUnknownAndNoneFree() {
        HolderView view = Attribution.of(new PodResourcesReading.Unreadable("PodResources List failed: UNAVAILABLE"), PODS, OFFERED, DRIVER);

        assertThat(view.entries()).extracting(HolderView.Entry::holding)
                .containsOnly(new Holding.Unknown("PodResources List failed: UNAVAILABLE"));
        assertThat(view.unknownHolders()).contains("PodResources List failed: UNAVAILABLE");
    }

    @Test
    void withoutTheApiHoldersHavePodAndContainerButNoVmi() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(plugin("vms/virt-launcher-vm1-x7k2p", "compute", T4, PCI_A.id()))),
                new PodDetails.Unknown("API server unreachable"), OFFERED, DRIVER);

        assertThat(holding(view, PCI_A)).isEqualTo(new Holding.Held(List.of(new Holder("vms", "virt-launcher-vm1-x7k2p", "compute",
                new Holder.Via.Plugin(T4.value()), Optional.empty()))));
        assertThat(view.unknownVmis()).contains("API server unreachable");
    }

    @Test
    void aDeviceTheNodeNoLongerOffersIsNotInTheView() {
        HolderView view = Attribution.of(new PodResourcesReading.Listed(List.of(plugin("vms/plain", "compute", T4, "0000:ff:00.0"))), PODS,
                List.of(PCI_A), DRIVER);

        assertThat(view.entries()).extracting(e -> e.device().id()).containsExactly(PCI_A.id());
        assertThat(holding(view, PCI_A)).isEqualTo(Holding.FREE);
    }
}
