package io.vfiodp.serve;

import static io.vfiodp.serve.ServedHost.awaitUpdateAfter;
import static io.vfiodp.serve.ServedHost.devices;
import static io.vfiodp.serve.ServedHost.has;
import static io.vfiodp.serve.ServedHost.listing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.plugin.PluginListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host changes on a copied fixture tree reach the kubelet simulator without a restart. Bounds are
 * generous (a loaded 2-core CI machine); {@code HealthLatencyBench} measures the real figures.
 */
class HealthOnFixturesTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration NEVER = Duration.ofHours(1);
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final List<String> T4_NUMA_START = List.of("0000:1a:00.0 Healthy", "0000:1b:00.0 Healthy", "0000:b1:00.0 Healthy",
            "0000:b2:00.0 Unhealthy");

    @TempDir Path temp;
    private ServedHost served;

    @AfterEach
    void stop() {
        if (served != null) served.close();
    }

    private Watch serve(String fixture, Duration rescanInterval, String... resources) throws Exception {
        served = ServedHost.start(FIXTURES.resolve(fixture), temp, rescanInterval, PluginListener.NONE);
        served.kubelet.awaitRegistrations(List.of(resources), 1, WAIT);
        Watch w = served.kubelet.watch(resources[0]);
        w.awaitUpdates(1, WAIT);
        return w;
    }

    @Test
    void removedGroupNodeMakesItsDeviceUnhealthyWithoutARescanTimer() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);

        served.host.removeGroupNode(24);

        assertThat(devices(awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT)))
                .containsExactly("0000:1a:00.0 Unhealthy", "0000:1b:00.0 Healthy", "0000:b1:00.0 Healthy", "0000:b2:00.0 Unhealthy");
    }

    @Test
    void recreatedGroupNodeMakesItsDeviceHealthyAgain() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);
        served.host.removeGroupNode(24);
        awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT);
        int seen = w.updates().size();

        served.host.createGroupNode(24);

        assertThat(devices(awaitUpdateAfter(w, seen, has("0000:1a:00.0", "Healthy"), WAIT))).isEqualTo(T4_NUMA_START);
    }

    @Test
    void groupNodeThatWasMissingAtStartRecoversWhenCreated() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);

        served.host.createGroupNode(65);

        assertThat(devices(awaitUpdateAfter(w, 1, has("0000:b2:00.0", "Healthy"), WAIT)))
                .containsExactly("0000:1a:00.0 Healthy", "0000:1b:00.0 Healthy", "0000:b1:00.0 Healthy", "0000:b2:00.0 Healthy");
    }

    @Test
    void groupMemberOnAHostDriverMakesTheGroupNotViableAndAllocateSaysWhy() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);
        served.host.moveToGroup("0000:5e:00.0", 24);
        served.host.bind("0000:5e:00.0", "nvme");

        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT);

        assertThatThrownBy(() -> served.kubelet.allocate(T4, List.of(List.of("0000:1a:00.0"))))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getDescription()).isEqualTo(
                        "Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:1a:00.0 is unhealthy: group 24 not viable: 0000:5e:00.0 bound to nvme"));
    }

    @Test
    void groupMemberReboundToVfioPciMakesTheGroupViableAgain() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);
        served.host.moveToGroup("0000:5e:00.0", 24);
        served.host.bind("0000:5e:00.0", "nvme");
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT);
        int seen = w.updates().size();

        served.host.bind("0000:5e:00.0", "vfio-pci");
        served.runtime.rescanNow();

        assertThat(devices(awaitUpdateAfter(w, seen, has("0000:1a:00.0", "Healthy"), WAIT))).isEqualTo(T4_NUMA_START);
    }

    @Test
    void gpuReboundToTheHostDriverTurnsUnhealthyAtTheNextPeriodicRescanAndAllocateSaysWhy() throws Exception {
        Watch w = serve("t4-numa", Duration.ofMillis(200), T4);

        served.host.bind("0000:1a:00.0", "nvidia");
        awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT);

        assertThatThrownBy(() -> served.kubelet.allocate(T4, List.of(List.of("0000:1a:00.0"))))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getDescription()).isEqualTo(
                        "Allocate nvidia.com/TU104GL_TESLA_T4: device 0000:1a:00.0 is unhealthy: no longer exposed: bound to nvidia: "
                                + "the host uses it (bind it to vfio-pci to pass it through); removed at the next rescan"));
    }

    @Test
    void gpuReboundToTheHostDriverDisappearsOneRescanAfterTurningUnhealthy() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);
        served.host.bind("0000:1a:00.0", "nvidia");
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, has("0000:1a:00.0", "Unhealthy"), WAIT);
        int seen = w.updates().size();

        served.runtime.rescanNow();

        assertThat(devices(awaitUpdateAfter(w, seen, r -> !ServedHost.lists(r, "0000:1a:00.0"), WAIT)))
                .containsExactly("0000:1b:00.0 Healthy", "0000:b1:00.0 Healthy", "0000:b2:00.0 Unhealthy");
    }

    @Test
    void gpuBoundToVfioPciIsServedAsANewResourceWhenItsGroupNodeAppears() throws Exception {
        String a100 = "nvidia.com/GA100_A100_PCIE_80GB";
        serve("t4-numa", NEVER, T4);

        served.host.bind("0000:3b:00.0", "vfio-pci");
        served.host.createGroupNode(31);

        served.kubelet.awaitRegistrations(List.of(a100), 1, WAIT);
        assertThat(devices(served.kubelet.watch(a100).awaitUpdate(r -> true, WAIT))).containsExactly("0000:3b:00.0 Healthy");
    }

    @Test
    void resourceWhoseLastDeviceWentAwayIsStoppedAndItsSocketRemoved() throws Exception {
        Watch w = serve("t4-numa", NEVER, T4);
        Path socket = served.kubelet.dir().resolve(served.kubelet.registrations().getFirst().endpoint());
        assertThat(socket).exists();

        for (String gpu : List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0")) served.host.bind(gpu, "nvidia");
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, listing("0000:1a:00.0 Unhealthy", "0000:1b:00.0 Unhealthy", "0000:b1:00.0 Unhealthy", "0000:b2:00.0 Unhealthy"), WAIT);
        served.runtime.rescanNow();

        w.awaitEnd(WAIT);
        assertThat(w.latest().orElseThrow().getDevicesCount()).isZero();
        assertThat(served.kubelet.resource(T4).map(r -> r.capacity() + "/" + r.allocatable())).contains("0/0");
        // the server removes its socket right after closing the streams
        await().atMost(WAIT).untilAsserted(() -> assertThat(socket).doesNotExist());
    }

    @Test
    void unchangedRescansSendNoUpdate() throws Exception {
        Watch w = serve("t4-numa", Duration.ofMillis(50), T4);
        int before = served.scans();

        await().atMost(WAIT).untilAsserted(() -> assertThat(served.scans()).isGreaterThanOrEqualTo(before + 10));
        // each scan is applied before the next: ten of them applied, and none sent an update
        served.runtime.loop().status().get();
        assertThat(w.updates()).hasSize(1);
    }

    @Test
    void removedMdevLeavesItsResourceAndComesBackWhenRecreated() throws Exception {
        String q2 = "nvidia.com/GRID_T4-2Q";
        String mdev = "7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13";
        Watch w = serve("t4-vgpu", NEVER, q2, "nvidia.com/GRID_T4-1Q");
        assertThat(ServedHost.lists(w.latest().orElseThrow(), mdev)).isTrue();

        Path target = served.host.removeMdev(mdev);
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, has(mdev, "Unhealthy"), WAIT);
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, r -> !ServedHost.lists(r, mdev), WAIT);
        int seen = w.updates().size();
        served.host.restoreMdev(mdev, target);
        served.runtime.rescanNow();

        assertThat(devices(awaitUpdateAfter(w, seen, r -> ServedHost.lists(r, mdev), WAIT))).contains(mdev + " Healthy");
    }

    @Test
    void vgpuVfWhoseTypeIsClearedDisappearsAndReturnsWhenSetAgain() throws Exception {
        String q4 = "nvidia.com/NVIDIA_L40S-4Q";
        Watch w = serve("l40s-sriov", NEVER, q4, "nvidia.com/NVIDIA_L40S-1Q");

        served.host.setVgpuType("0000:41:00.5", 0);
        served.runtime.rescanNow();
        awaitUpdateAfter(w, 1, listing("0000:41:00.4 Healthy", "0000:41:00.5 Unhealthy"), WAIT);
        served.runtime.rescanNow();
        assertThat(devices(awaitUpdateAfter(w, 1, listing("0000:41:00.4 Healthy"), WAIT))).containsExactly("0000:41:00.4 Healthy");
        int seen = w.updates().size();
        served.host.setVgpuType("0000:41:00.5", 1150);
        served.runtime.rescanNow();

        assertThat(devices(awaitUpdateAfter(w, seen, listing("0000:41:00.4 Healthy", "0000:41:00.5 Healthy"), WAIT)))
                .containsExactly("0000:41:00.4 Healthy", "0000:41:00.5 Healthy");
    }
}
