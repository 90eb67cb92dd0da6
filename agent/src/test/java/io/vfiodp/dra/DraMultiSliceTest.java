package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool that spans several ResourceSlices: 150 GPUs of a node made up here, in the API (fabric8's
 * mock server) through the driver, whose resync is 5 min here, so whatever reaches the slices
 * within the wait came from the health change itself.
 */
class DraMultiSliceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final TargetState NODE = gpus(150);
    private static final String SLICE = "node-a-vfio-device-plugin.io-";

    @TempDir Path root;

    /** A node of {@code count} passthrough GPUs on vfio-pci, each alone in its IOMMU group, every one through DRA. */
    static TargetState gpus(int count) {
        List<ExposedDevice> devices = new ArrayList<>();
        SortedMap<String, DeviceProfile> profiles = new TreeMap<>();
        Set<Integer> groups = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            PciAddress a = new PciAddress(0, 0x10 + i, 0, 0);
            devices.add(new ExposedDevice(a.toString(), DeviceKind.PCI, a, i, i % 2, List.of(), Optional.empty(), List.of(), Health.HEALTHY));
            profiles.put(a.toString(), new DeviceProfile(DraKind.PASSTHROUGH, 0x10de, 0x2331, Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.empty()));
            groups.add(i);
        }
        DesiredState dra = DesiredState.of(List.of(new DesiredResource(ResourceName.of("nvidia.com/GH100_H100_PCIE"), DeviceKind.PCI, devices)));
        return new TargetState(DesiredState.EMPTY, DevNodes.of(true, groups, false, Set.of()), new DraOffer(dra, profiles));
    }

    /** Slice name → {@code gen=G of N [device, device!, ...]}, "!" marking a tainted device. */
    private static Map<String, String> pool(DraHarness h) {
        return h.slices().stream().collect(Collectors.toMap(s -> s.getMetadata().getName(), DraMultiSliceTest::describe));
    }

    private static String describe(ResourceSlice s) {
        return "gen=" + s.getSpec().getPool().getGeneration() + " of " + s.getSpec().getPool().getResourceSliceCount() + " "
                + s.getSpec().getDevices().stream().map(DraMultiSliceTest::device).toList();
    }

    private static String device(Device d) {
        return d.getName() + (d.getTaints() == null || d.getTaints().isEmpty() ? "" : "!");
    }

    private static List<String> sizes(DraHarness h) {
        return h.slices().stream().map(s -> s.getMetadata().getName() + "=" + s.getSpec().getDevices().size()).toList();
    }

    @Test
    void aDeviceGoneUnhealthyIsTaintedInItsSliceByOneUpdateAndTheSplitStays() {
        try (DraHarness h = new DraHarness(root).start(NODE)) {
            await().atMost(WAIT).until(() -> sizes(h), s -> s.equals(List.of(SLICE + "0=64", SLICE + "1=64", SLICE + "2=22")));
            Map<String, String> before = pool(h);
            // the pool's 101st device, in its second slice
            String name = "pci-0000-74-00-0";

            h.driver.apply(DraNodes.withHealth(NODE, "0000:74:00.0", Health.unhealthy("IOMMU group 100: /dev/vfio/100 missing")));
            await().atMost(WAIT).until(() -> pool(h).get(SLICE + "1"), s -> s.contains(name + "!"));

            // its slice (of 64 devices, the API's limit with a taint) took the taint in place: the same devices in every slice,
            // the other slices untouched, the pool's generation kept, as one update is atomic for the scheduler
            Map<String, String> tainted = pool(h);
            assertThat(tainted.get(SLICE + "1")).isEqualTo(before.get(SLICE + "1").replace(name, name + "!"));
            assertThat(tainted).hasSize(3).containsEntry(SLICE + "0", before.get(SLICE + "0")).containsEntry(SLICE + "2", before.get(SLICE + "2"));

            h.driver.apply(NODE);
            await().atMost(WAIT).until(() -> pool(h), before::equals);
        }
    }
}
