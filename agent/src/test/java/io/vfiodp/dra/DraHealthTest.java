package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceIdentifier;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code NodeWatchResources} stream the kubelet keeps open once it registered the driver. */
class DraHealthTest {

    static final long STAMP = DraHarness.CLOCK.instant().getEpochSecond();

    @TempDir Path root;

    private static DeviceHealth device(String name, HealthStatus status, String message) {
        return DeviceHealth.newBuilder().setDevice(DeviceIdentifier.newBuilder().setPoolName("node-a").setDeviceName(name))
                .setHealth(status).setLastUpdatedTime(STAMP).setMessage(message).build();
    }

    private static NodeWatchResourcesResponse last(DraHarness h) {
        List<NodeWatchResourcesResponse> updates = h.kubelet.healthUpdates();
        return updates.getLast();
    }

    @Test
    void theStreamListsEveryDeviceWithItsHealthAndTheReasonWhenUnhealthy() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !h.kubelet.healthUpdates().isEmpty()
                    && last(h).getDevicesCount() == 4);
            assertThat(last(h).getDevicesList()).containsExactly(
                    device("pci-0000-1a-00-0", HealthStatus.HEALTHY, ""),
                    device("pci-0000-1b-00-0", HealthStatus.HEALTHY, ""),
                    device("pci-0000-b1-00-0", HealthStatus.HEALTHY, ""),
                    device("pci-0000-b2-00-0", HealthStatus.UNHEALTHY, "IOMMU group 65: /dev/vfio/65 missing"));
        }
    }

    @Test
    void aHealthChangeReachesTheKubeletAndSoDoesTheRecovery() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1a:00.0", Health.unhealthy("/dev/vfio/24 disappeared")));
            await().atMost(Duration.ofSeconds(30)).until(() -> last(h).getDevicesList()
                    .contains(device("pci-0000-1a-00-0", HealthStatus.UNHEALTHY, "/dev/vfio/24 disappeared")));
            h.driver.apply(DraNodes.allDra("t4-numa"));
            await().atMost(Duration.ofSeconds(30)).until(() -> last(h).getDevicesList()
                    .contains(device("pci-0000-1a-00-0", HealthStatus.HEALTHY, "")));
        }
    }

    @Test
    void eachHealthChangeIsToldToTheListenerButDevicesThatComeAndGoAreNot() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1a:00.0", Health.unhealthy("/dev/vfio/24 missing")));
            h.driver.apply(DraNodes.allDra("t4-numa"));
            h.driver.apply(DraNodes.state("t4-numa", DraRouting.NONE));
            h.driver.apply(DraNodes.allDra("t4-numa"));
            // the status is answered after every state applied before it
            assertThat(h.driver.status().join().devices()).isEqualTo(4);
            assertThat(h.heard).containsExactly(
                    "health nvidia.com/TU104GL_TESLA_T4 0000:1a:00.0 Healthy -> Unhealthy: /dev/vfio/24 missing",
                    "health nvidia.com/TU104GL_TESLA_T4 0000:1a:00.0 Unhealthy -> Healthy");
        }
    }

    @Test
    void theListIsRepeatedSoTheKubeletDoesNotTimeTheDevicesOut() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !h.kubelet.healthUpdates().isEmpty() && last(h).getDevicesCount() == 4);
            int seen = h.kubelet.healthUpdates().size();
            // the harness's heartbeat is 1 s
            await().atMost(Duration.ofSeconds(30)).until(() -> h.kubelet.healthUpdates().size() >= seen + 2);
            assertThat(last(h)).isEqualTo(h.kubelet.healthUpdates().get(seen - 1));
        }
    }

    @Test
    void aVeryLongReasonIsCutToTheKubeletsLimit() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1a:00.0", Health.unhealthy("x".repeat(2000))));
            await().atMost(Duration.ofSeconds(30)).until(() -> last(h).getDevices(0).getHealth() == HealthStatus.UNHEALTHY);
            assertThat(last(h).getDevices(0).getMessage()).hasSize(1024).endsWith("x...");
        }
    }
}
