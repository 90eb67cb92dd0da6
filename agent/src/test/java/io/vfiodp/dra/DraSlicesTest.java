package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.Health;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ResourceSlices the driver keeps in the API (fabric8's mock server in CRUD mode, which can
 * also play an API server whose feature DRADeviceTaints is off).
 */
class DraSlicesTest {

    @TempDir Path root;

    private static List<String> deviceNames(ResourceSlice s) {
        return s.getSpec().getDevices().stream().map(Device::getName).toList();
    }

    private static Map<String, DeviceAttribute> attributes(ResourceSlice s, String device) {
        return s.getSpec().getDevices().stream().filter(d -> d.getName().equals(device)).findFirst().orElseThrow().getAttributes();
    }

    private static DeviceAttribute text(String v) {
        DeviceAttribute a = new DeviceAttribute();
        a.setString(v);
        return a;
    }

    private static DeviceAttribute number(long v) {
        DeviceAttribute a = new DeviceAttribute();
        a.setInt(v);
        return a;
    }

    private static ResourceSlice onlySlice(DraHarness h, long generation) {
        await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().size() == 1
                && h.slices().getFirst().getSpec().getPool().getGeneration() == generation);
        return h.slices().getFirst();
    }

    /** The pool's one slice once it matches {@code match}. */
    private static ResourceSlice onlySlice(DraHarness h, java.util.function.Predicate<ResourceSlice> match) {
        await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().size() == 1 && match.test(h.slices().getFirst()));
        return h.slices().getFirst();
    }

    private static long generation(ResourceSlice s) {
        return s.getSpec().getPool().getGeneration();
    }

    private static List<DeviceTaint> taints(ResourceSlice s, String device) {
        List<DeviceTaint> t = s.getSpec().getDevices().stream().filter(d -> d.getName().equals(device)).findFirst().orElseThrow().getTaints();
        return t == null ? List.of() : t;
    }

    private static DeviceTaint taint(String value) {
        DeviceTaint t = new DeviceTaint();
        t.setKey("vfio-device-plugin.io/unhealthy");
        t.setValue(value);
        t.setEffect("NoSchedule");
        return t;
    }

    private static final List<String> POOL = List.of("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0", "pci-0000-b2-00-0");

    @Test
    void aPassthroughNodePublishesItsGpusInOneSliceOfItsPool() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceSlice s = onlySlice(h, 1);
            assertThat(s.getMetadata().getName()).isEqualTo("node-a-vfio-device-plugin.io-0");
            assertThat(s.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
                assertThat(o.getKind()).isEqualTo("Node");
                assertThat(o.getName()).isEqualTo("node-a");
                assertThat(o.getUid()).isEqualTo(h.api.client().nodes().withName("node-a").get().getMetadata().getUid());
            });
            assertThat(s.getSpec().getDriver()).isEqualTo("vfio-device-plugin.io");
            assertThat(s.getSpec().getNodeName()).isEqualTo("node-a");
            assertThat(s.getSpec().getPool().getName()).isEqualTo("node-a");
            assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
            assertThat(deviceNames(s)).containsExactlyElementsOf(POOL);
            assertThat(taints(s, "pci-0000-b1-00-0")).isEmpty();
            assertThat(attributes(s, "pci-0000-b1-00-0")).isEqualTo(new TreeMap<>(Map.of(
                    "kind", text("passthrough"),
                    "resourceName", text("nvidia.com/TU104GL_TESLA_T4"),
                    "vendorID", text("0x10de"),
                    "deviceID", text("0x1eb8"),
                    "productName", text("TU104GL [Tesla T4]"),
                    "iommuGroup", number(64),
                    "resource.kubernetes.io/pciBusID", text("0000:b1:00.0"),
                    "resource.kubernetes.io/pcieRoot", text("pci0000:ae"),
                    "resource.kubernetes.io/numaNode", number(1))));
        }
    }

    @Test
    void anMdevNodePublishesItsVgpusWithTypeUuidAndParent() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-vgpu"))) {
            ResourceSlice s = onlySlice(h, 1);
            assertThat(deviceNames(s)).hasSize(5);
            assertThat(attributes(s, "mdev-7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13")).isEqualTo(new TreeMap<>(Map.ofEntries(
                    Map.entry("kind", text("mdev")),
                    Map.entry("resourceName", text("nvidia.com/GRID_T4-2Q")),
                    Map.entry("vendorID", text("0x10de")),
                    Map.entry("deviceID", text("0x1eb8")),
                    Map.entry("productName", text("TU104GL [Tesla T4]")),
                    Map.entry("iommuGroup", number(103)),
                    Map.entry("vgpuType", text("GRID T4-2Q")),
                    Map.entry("vgpuTypeID", text("nvidia-231")),
                    Map.entry("mdevUUID", text("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13")),
                    Map.entry("parentPCIBusID", text("0000:d9:00.0")),
                    Map.entry("resource.kubernetes.io/pcieRoot", text("pci0000:d8")),
                    Map.entry("resource.kubernetes.io/numaNode", number(1)))));
        }
    }

    @Test
    void anSriovVgpuNodePublishesItsVirtualFunctionsAsPciDevicesOfTheirType() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("l40s-sriov"))) {
            ResourceSlice s = onlySlice(h, 1);
            assertThat(deviceNames(s)).containsExactly("pci-0000-41-00-4", "pci-0000-41-00-5", "pci-0000-c1-00-4");
            Map<String, DeviceAttribute> a = attributes(s, "pci-0000-c1-00-4");
            assertThat(a).containsEntry("kind", text("sriov-vgpu")).containsEntry("vgpuType", text("NVIDIA L40S-1Q"))
                    .containsEntry("vgpuTypeID", text("1147")).containsEntry("resource.kubernetes.io/pciBusID", text("0000:c1:00.4"))
                    .containsEntry("resource.kubernetes.io/pcieRoot", text("pci0000:c0")).doesNotContainKey("mdevUUID");
        }
    }

    @Test
    void anUnhealthyDeviceStaysInTheSliceWithANoScheduleTaintThatSaysWhy() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            // 0000:b2:00.0 has no /dev/vfio/65 on this node
            assertThat(taints(onlySlice(h, 1), "pci-0000-b2-00-0")).containsExactly(taint("IOMMU-group-65-dev-vfio-65-missing"));
        }
    }

    @Test
    void aDeviceGoneUnhealthyIsTaintedAndLosesItsTaintWhenHealthyAgainEachByOneUpdateInPlace() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            onlySlice(h, 1);
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1b:00.0", Health.unhealthy("/dev/vfio/25 disappeared")));
            ResourceSlice tainted = onlySlice(h, s -> !taints(s, "pci-0000-1b-00-0").isEmpty());
            assertThat(deviceNames(tainted)).containsExactlyElementsOf(POOL);
            assertThat(taints(tainted, "pci-0000-1b-00-0")).containsExactly(taint("dev-vfio-25-disappeared"));
            // one slice changed: one update, atomic for the scheduler, so the pool keeps its generation
            assertThat(generation(tainted)).isEqualTo(1);
            h.driver.apply(DraNodes.allDra("t4-numa"));
            assertThat(generation(onlySlice(h, s -> taints(s, "pci-0000-1b-00-0").isEmpty()))).isEqualTo(1);
        }
    }

    @Test
    void whereTheApiServerDropsTaintsAnUnhealthyDeviceLeavesTheSliceInstead() {
        try (DraHarness h = new DraHarness(root)) {
            h.api.dropDeviceTaints(true);
            h.start(DraNodes.allDra("t4-numa"));
            ResourceSlice s = onlySlice(h, 1);
            assertThat(deviceNames(s)).containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0");
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1b:00.0", Health.unhealthy("/dev/vfio/25 disappeared")));
            assertThat(deviceNames(onlySlice(h, slice -> slice.getSpec().getDevices().size() == 2))).containsExactly("pci-0000-1a-00-0",
                    "pci-0000-b1-00-0");
            // the dry runs that asked stored nothing
            assertThat(h.slices()).hasSize(1);
        }
    }

    @Test
    void whenTheApiServerKeepsTaintsAgainTheResyncPutsTheUnhealthyDeviceBackTainted() {
        try (DraHarness h = new DraHarness(root, DraNodes.settings(root).withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(300)))) {
            h.api.dropDeviceTaints(true);
            h.start(DraNodes.allDra("t4-numa"));
            assertThat(deviceNames(onlySlice(h, 1))).containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0");
            h.api.dropDeviceTaints(false);
            ResourceSlice s = onlySlice(h, slice -> slice.getSpec().getDevices().size() == 4);
            assertThat(deviceNames(s)).containsExactlyElementsOf(POOL);
            assertThat(taints(s, "pci-0000-b2-00-0")).containsExactly(taint("IOMMU-group-65-dev-vfio-65-missing"));
        }
    }

    @Test
    void aSliceWhoseTaintTheApiServerStampedIsNotWrittenAgainAtTheResync() {
        try (DraHarness h = new DraHarness(root, DraNodes.settings(root).withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(200)))) {
            h.start(DraNodes.allDra("t4-numa"));
            ResourceSlice first = onlySlice(h, 1);
            first.getSpec().getDevices().stream().filter(d -> d.getName().equals("pci-0000-b2-00-0")).findFirst().orElseThrow()
                    .getTaints().getFirst().setTimeAdded("2026-05-04T09:59:00Z");
            h.api.client().dynamicResourceAllocation().v1().resourcesSlices().resource(first).update();
            // several resyncs compare it: the stamp is the API server's, not a difference
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(30)).until(() -> h.slices().getFirst().getSpec().getPool()
                    .getGeneration() == 1);
        }
    }

    @Test
    void aTaintKeepsTheTimeTheApiServerStampedItWithWhenItsSliceIsWrittenAgain() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceSlice first = onlySlice(h, 1);
            // as kube-apiserver does, stamp the taint's timeAdded
            first.getSpec().getDevices().stream().filter(d -> d.getName().equals("pci-0000-b2-00-0")).findFirst().orElseThrow()
                    .getTaints().getFirst().setTimeAdded("2026-05-04T09:59:00Z");
            h.api.client().dynamicResourceAllocation().v1().resourcesSlices().resource(first).update();
            h.driver.apply(without(DraNodes.allDra("t4-numa"), "0000:1a:00.0"));
            DeviceTaint kept = taints(onlySlice(h, s -> s.getSpec().getDevices().size() == 3), "pci-0000-b2-00-0").getFirst();
            assertThat(kept.getTimeAdded()).isEqualTo("2026-05-04T09:59:00Z");
            assertThat(kept.getValue()).isEqualTo("IOMMU-group-65-dev-vfio-65-missing");
        }
    }

    @Test
    void aHotUnpluggedDeviceLeavesAndAHotPluggedOneJoins() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            TargetState all = DraNodes.allDra("t4-numa");
            onlySlice(h, 1);
            h.driver.apply(without(all, "0000:1a:00.0"));
            assertThat(deviceNames(onlySlice(h, s -> s.getSpec().getDevices().size() == 3))).containsExactly("pci-0000-1b-00-0",
                    "pci-0000-b1-00-0", "pci-0000-b2-00-0");
            h.driver.apply(all);
            assertThat(deviceNames(onlySlice(h, s -> s.getSpec().getDevices().size() == 4))).containsExactlyElementsOf(POOL);
        }
    }

    @Test
    void slicesTheKubeletDeletedAtItsStartAreWrittenAgainWhenItRegistersTheDriver() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            onlySlice(h, 1);
            h.api.client().dynamicResourceAllocation().v1().resourcesSlices().delete();
            assertThat(h.slices()).isEmpty();
            h.kubelet.restart();
            h.registerOnce();
            // the generation never goes back, so no consumer takes the new slices for stale ones
            assertThat(deviceNames(onlySlice(h, 2))).containsExactlyElementsOf(POOL);
        }
    }

    @Test
    void nothingRoutedToDraPublishesNothingAndRemovesWhatWasThere() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            onlySlice(h, 1);
            h.driver.apply(DraNodes.state("t4-numa", io.vfiodp.policy.DraRouting.NONE));
            await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().isEmpty());
        }
    }

    @Test
    void aRestartedDriverWithTheSameDevicesKeepsTheGeneration() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            onlySlice(h, 1);
            h.restartDriver(DraNodes.allDra("t4-numa"));
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(30))
                    .until(() -> h.slices().size() == 1 && h.slices().getFirst().getSpec().getPool().getGeneration() == 1);
        }
    }

    /** {@code state} without the DRA device {@code id}, as the next scan shows a hot-unplug. */
    static TargetState without(TargetState state, String id) {
        List<DesiredResource> kept = state.dra().resources().resources().values().stream()
                .map(r -> new DesiredResource(r.name(), r.kind(), r.devices().stream().filter(d -> !d.id().equals(id)).toList())).toList();
        TreeMap<String, io.vfiodp.policy.DeviceProfile> profiles = new TreeMap<>(state.dra().profiles());
        profiles.remove(id);
        return new TargetState(state.plugins(), state.devNodes(), new DraOffer(DesiredState.of(kept), profiles));
    }
}
