package io.vfiodp.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SliceLayoutTest {

    static DriverView devices(int count, int unhealthyEvery) {
        SortedMap<String, DraDevice> devices = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            PciAddress a = new PciAddress(0, i / 32 + 1, i % 32, 0);
            Health h = unhealthyEvery > 0 && i % unhealthyEvery == 0 ? Health.unhealthy("test") : Health.HEALTHY;
            ExposedDevice d = new ExposedDevice(a.toString(), DeviceKind.PCI, a, i, -1, List.of(), Optional.empty(), List.of(), h);
            String name = String.format("dev-%04d", i);
            devices.put(name, new DraDevice(name, d, ResourceName.of("x.io/y"), new DeviceProfile(DraKind.PASSTHROUGH, 1, 2, Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.empty()), new TreeMap<>()));
        }
        return new DriverView(devices, DevNodes.NONE);
    }

    private static List<List<String>> names(List<List<SliceLayout.Entry>> slices) {
        return slices.stream().map(s -> s.stream().map(SliceLayout.Entry::name).toList()).toList();
    }

    @Test
    void atMost64DevicesGoInOneSlice() {
        List<List<SliceLayout.Entry>> slices = SliceLayout.slices(SliceLayout.entries(devices(300, 0), "x.io"), true);
        assertThat(slices).extracting(List::size).containsExactly(64, 64, 64, 64, 44);
        assertThat(slices.get(1).getFirst().name()).isEqualTo("dev-0064");
    }

    @Test
    void anUnhealthyDeviceCarriesANoScheduleTaintUnderTheDriversDomainWithItsReason() {
        List<SliceLayout.Entry> entries = SliceLayout.entries(devices(4, 3), "vfio-device-plugin.io");
        assertThat(entries).extracting(SliceLayout.Entry::taints).containsExactly(
                List.of(new HealthTaint("vfio-device-plugin.io/unhealthy", "test", "NoSchedule")), List.of(), List.of(),
                List.of(new HealthTaint("vfio-device-plugin.io/unhealthy", "test", "NoSchedule")));
    }

    @Test
    void whereTaintsAreKeptUnhealthyDevicesStayInTheirSlice() {
        assertThat(names(SliceLayout.slices(SliceLayout.entries(devices(4, 3), "x.io"), true)))
                .containsExactly(List.of("dev-0000", "dev-0001", "dev-0002", "dev-0003"));
    }

    @Test
    void whereTaintsAreDroppedUnhealthyDevicesAreLeftOut() {
        assertThat(names(SliceLayout.slices(SliceLayout.entries(devices(10, 3), "x.io"), false)))
                .containsExactly(List.of("dev-0001", "dev-0002", "dev-0004", "dev-0005", "dev-0007", "dev-0008"));
    }

    @Test
    void aHealthChangeMovesNoDeviceToAnotherSlice() {
        // the API allows 128 devices in a slice without taints and 64 with: laid out for 64, a taint changes one slice only
        List<SliceLayout.Entry> entries = SliceLayout.entries(devices(300, 0), "x.io");
        List<SliceLayout.Entry> oneTainted = new java.util.ArrayList<>(entries);
        oneTainted.set(200, new SliceLayout.Entry("dev-0200", new TreeMap<>(), List.of(HealthTaint.unhealthy("x.io", "gone"))));
        List<List<SliceLayout.Entry>> healthy = SliceLayout.slices(entries, true);
        List<List<SliceLayout.Entry>> tainted = SliceLayout.slices(oneTainted, true);
        assertThat(names(tainted)).isEqualTo(names(healthy));
        assertThat(java.util.stream.IntStream.range(0, healthy.size()).filter(i -> !healthy.get(i).equals(tainted.get(i))).boxed().toList())
                .containsExactly(3);
    }

    @Test
    void whereTaintsAreDroppedAnUnhealthyDeviceLeavesOnlyItsOwnSlice() {
        List<SliceLayout.Entry> entries = SliceLayout.entries(devices(200, 0), "x.io");
        List<SliceLayout.Entry> oneTainted = new java.util.ArrayList<>(entries);
        oneTainted.set(70, new SliceLayout.Entry("dev-0070", new TreeMap<>(), List.of(HealthTaint.unhealthy("x.io", "gone"))));
        List<List<String>> slices = names(SliceLayout.slices(oneTainted, false));
        assertThat(slices).extracting(List::size).containsExactly(64, 63, 64, 8);
        assertThat(slices.get(1)).doesNotContain("dev-0070").startsWith("dev-0064").endsWith("dev-0127");
        assertThat(slices.get(2).getFirst()).isEqualTo("dev-0128");
    }

    @Test
    void noDeviceLeftIsNoSlice() {
        assertThat(SliceLayout.slices(SliceLayout.entries(devices(3, 1), "x.io"), false)).isEmpty();
    }

    @Test
    void slicesAreNamedAfterNodeDriverAndIndexWithinTheApisLimit() {
        assertThat(SliceLayout.sliceName("node-a", "vfio-device-plugin.io", 2)).isEqualTo("node-a-vfio-device-plugin.io-2");
        String longNode = "n".repeat(63) + "." + "m".repeat(63) + "." + "o".repeat(63) + "." + "p".repeat(50);
        String name = SliceLayout.sliceName(longNode, "vfio-device-plugin.io", 0);
        assertThat(name).matches("vfio-[0-9a-f]{16}-0");
        assertThat(SliceLayout.sliceName(longNode, "vfio-device-plugin.io", 0)).isEqualTo(name);
    }
}
