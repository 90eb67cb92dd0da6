package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real scan, policy and serve code on every fixture node, against the kubelet simulator over unix sockets. */
class ServeOnFixturesTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path dir;
    private KubeletSimulator kubelet;
    private ServedPlugins runtime;

    @AfterEach
    void stop() {
        if (runtime != null) runtime.close();
        if (kubelet != null) kubelet.close();
    }

    /** Serves {@code fixture} and returns the resource names the kubelet saw registered, once all expected ones are. */
    private List<String> serve(String fixture, String... expected) throws Exception {
        Path node = FIXTURES.resolve(fixture);
        kubelet = KubeletSimulator.start(dir);
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1),
                new ScanPolicySource(new SysfsScanner(node.resolve("sys"), node.resolve("dev"))::scan, Optional.empty(), PciIds.bundled()));
        kubelet.awaitRegistrations(List.of(expected), 1, WAIT);
        return kubelet.registrations().stream().map(KubeletSimulator.Registration::resourceName).sorted().toList();
    }

    private List<String> listed(String resource) throws Exception {
        return kubelet.watch(resource).awaitUpdate(u -> true, WAIT).getDevicesList().stream()
                .map(d -> d.getID() + " " + d.getHealth() + (d.hasTopology() ? " numa" + d.getTopology().getNodes(0).getID() : "")).toList();
    }

    private static List<String> paths(ContainerAllocateResponse c) {
        assertThat(c.getDevicesList()).allSatisfy(d -> {
            assertThat(d.getContainerPath()).isEqualTo(d.getHostPath());
            assertThat(d.getPermissions()).isEqualTo("mrw");
        });
        return c.getDevicesList().stream().map(DeviceSpec::getHostPath).toList();
    }

    @Test
    void workstationServesTheGeforceAndPutsItsCompanionsInTheirOwnVariable() throws Exception {
        String rtx = "nvidia.com/TU104_GEFORCE_RTX_2080_REV__A";
        assertThat(serve("workstation", rtx)).containsExactly(rtx);
        assertThat(listed(rtx)).containsExactly("0000:01:00.0 Healthy");

        ContainerAllocateResponse c = kubelet.allocate(rtx, List.of(List.of("0000:01:00.0"))).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnly(
                Map.entry("PCI_RESOURCE_NVIDIA_COM_TU104_GEFORCE_RTX_2080_REV__A", "0000:01:00.0"),
                Map.entry("VFIO_DP_COMPANIONS_NVIDIA_COM_TU104_GEFORCE_RTX_2080_REV__A", "0000:01:00.0=0000:01:00.1+0000:01:00.2+0000:01:00.3"));
        assertThat(paths(c)).containsExactly("/dev/vfio/vfio", "/dev/vfio/12");
    }

    @Test
    void t4NumaListsFourT4sWithTheirNumaNodesAndTheOneWithoutGroupNodeUnhealthy() throws Exception {
        String t4 = "nvidia.com/TU104GL_TESLA_T4";
        assertThat(serve("t4-numa", t4)).containsExactly(t4);

        assertThat(listed(t4)).containsExactly("0000:1a:00.0 Healthy numa0", "0000:1b:00.0 Healthy numa0", "0000:b1:00.0 Healthy numa1",
                "0000:b2:00.0 Unhealthy numa1");
    }

    @Test
    void t4NumaPrefersTwoGpusBehindOneSwitchOnOneNodeAndAllocatesTheirGroups() throws Exception {
        String t4 = "nvidia.com/TU104GL_TESLA_T4";
        serve("t4-numa", t4);

        List<String> preferred = kubelet.preferredAllocation(t4, List.of("0000:b1:00.0", "0000:1a:00.0", "0000:1b:00.0"), List.of(), 2);
        ContainerAllocateResponse c = kubelet.allocate(t4, List.of(preferred)).getContainerResponses(0);

        assertThat(preferred).containsExactly("0000:1a:00.0", "0000:1b:00.0");
        assertThat(c.getEnvsMap()).containsOnly(Map.entry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:1a:00.0,0000:1b:00.0"));
        assertThat(paths(c)).containsExactly("/dev/vfio/vfio", "/dev/vfio/24", "/dev/vfio/25");
    }

    @Test
    void t4NumaRefusesTheUnhealthyT4() throws Exception {
        String t4 = "nvidia.com/TU104GL_TESLA_T4";
        serve("t4-numa", t4);

        assertThatThrownBy(() -> kubelet.allocate(t4, List.of(List.of("0000:b2:00.0"))))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).isEqualTo(
                            "Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:b2:00.0 is unhealthy: IOMMU group 65: /dev/vfio/65 missing");
                });
    }

    @Test
    void hgxServesGpusAndNvswitchesAsTwoResourcesAndPairsGpusBehindOneSwitch() throws Exception {
        String gpus = "nvidia.com/GH100_H100_SXM5_80GB";
        String nvswitch = "nvidia.com/GH100_H100_NVSWITCH";
        assertThat(serve("hgx-8gpu", gpus, nvswitch)).containsExactly(nvswitch, gpus);
        List<String> all = kubelet.watch(gpus).awaitUpdate(u -> true, WAIT).getDevicesList().stream().map(Device::getID).toList();

        assertThat(all).hasSize(8);
        assertThat(kubelet.preferredAllocation(gpus, all, List.of(), 2)).containsExactly("0000:18:00.0", "0000:19:00.0");
        assertThat(kubelet.preferredAllocation(gpus, all, List.of("0000:9b:00.0"), 2)).containsExactly("0000:9a:00.0", "0000:9b:00.0");
        assertThat(paths(kubelet.allocate(nvswitch, List.of(List.of("0000:1a:00.0"))).getContainerResponses(0)))
                .containsExactly("/dev/vfio/vfio", "/dev/vfio/27");
    }

    @Test
    void t4VgpuServesEachMdevTypeAsItsOwnResourceWithTheMdevPrefix() throws Exception {
        String q1 = "nvidia.com/GRID_T4-1Q";
        String q2 = "nvidia.com/GRID_T4-2Q";
        assertThat(serve("t4-vgpu", q1, q2)).containsExactly(q1, q2);

        ContainerAllocateResponse c = kubelet.allocate(q2, List.of(List.of("e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64",
                "7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13"))).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnly(Map.entry("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-2Q",
                "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64,7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13"));
        assertThat(paths(c)).containsExactly("/dev/vfio/vfio", "/dev/vfio/104", "/dev/vfio/103");
    }

    @Test
    void l40sSriovServesVgpuVfsAsPciWithIommufdNodes() throws Exception {
        String q1 = "nvidia.com/NVIDIA_L40S-1Q";
        String q4 = "nvidia.com/NVIDIA_L40S-4Q";
        assertThat(serve("l40s-sriov", q1, q4)).containsExactly(q1, q4);
        assertThat(listed(q4)).containsExactly("0000:41:00.4 Healthy numa0", "0000:41:00.5 Healthy numa0");

        ContainerAllocateResponse c = kubelet.allocate(q4, List.of(List.of("0000:41:00.5"))).getContainerResponses(0);

        assertThat(c.getEnvsMap()).containsOnly(Map.entry("PCI_RESOURCE_NVIDIA_COM_NVIDIA_L40S-4Q", "0000:41:00.5"));
        assertThat(paths(c)).containsExactly("/dev/vfio/vfio", "/dev/vfio/23", "/dev/iommu", "/dev/vfio/devices/vfio1");
    }

    @Test
    void hostileNodeStillServesItsOneUsableT4() throws Exception {
        String t4 = "nvidia.com/TU104GL_TESLA_T4";
        assertThat(serve("hostile", t4)).containsExactly(t4);
        assertThat(listed(t4)).containsExactly("0000:01:00.0 Healthy numa0");

        assertThat(paths(kubelet.allocate(t4, List.of(List.of("0000:01:00.0"))).getContainerResponses(0)))
                .containsExactly("/dev/vfio/vfio", "/dev/vfio/10");
    }

    @Test
    void groupNodeThatVanishesAndComesBackMakesTheDeviceUnhealthyAndHealthyAgainOnRescan(@TempDir Path copy) throws Exception {
        Trees.copy(FIXTURES.resolve("t4-numa"), copy);
        String t4 = "nvidia.com/TU104GL_TESLA_T4";
        kubelet = KubeletSimulator.start(dir);
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1),
                new ScanPolicySource(new SysfsScanner(copy.resolve("sys"), copy.resolve("dev"))::scan, Optional.empty(), PciIds.bundled()));
        kubelet.awaitRegistrations(List.of(t4), 1, WAIT);
        Watch watch = kubelet.watch(t4);
        watch.awaitUpdates(1, WAIT);

        Files.delete(copy.resolve("dev/vfio/24"));
        runtime.rescanNow();
        watch.awaitUpdates(2, WAIT);
        Files.createFile(copy.resolve("dev/vfio/24"));
        runtime.rescanNow();
        watch.awaitUpdates(3, WAIT);

        assertThat(watch.updates()).extracting(u -> u.getDevices(0).getID() + " " + u.getDevices(0).getHealth())
                .containsExactly("0000:1a:00.0 Healthy", "0000:1a:00.0 Unhealthy", "0000:1a:00.0 Healthy");
        assertThat(kubelet.allocate(t4, List.of(List.of("0000:1a:00.0"))).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void everyResourceOfEveryFixtureListsExactlyThePolicysDevices() throws Exception {
        for (String fixture : List.of("workstation", "t4-numa", "hgx-8gpu", "t4-vgpu", "l40s-sriov", "hostile")) {
            Path node = FIXTURES.resolve(fixture);
            TargetState expected = new ScanPolicySource(new SysfsScanner(node.resolve("sys"), node.resolve("dev"))::scan, Optional.empty(),
                    PciIds.bundled()).read();
            Path fixtureDir = dir.resolve(fixture);
            java.nio.file.Files.createDirectories(fixtureDir);
            try (KubeletSimulator k = KubeletSimulator.start(fixtureDir);
                 ServedPlugins r = ServedPlugins.start(PluginSettings.of(fixtureDir), Duration.ofHours(1), () -> expected)) {
                List<String> names = expected.plugins().resources().keySet().stream().map(Object::toString).toList();
                k.awaitRegistrations(names, 1, WAIT);
                for (var resource : expected.plugins().resources().values()) {
                    ListAndWatchResponse update = k.watch(resource.name().value()).awaitUpdate(u -> true, WAIT);
                    assertThat(update.getDevicesList()).as(fixture + " " + resource.name())
                            .extracting(Device::getID).containsExactlyElementsOf(resource.devices().stream().map(d -> d.id()).toList());
                }
            }
        }
    }
}
