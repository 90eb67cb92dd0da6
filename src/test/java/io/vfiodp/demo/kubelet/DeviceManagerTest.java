package io.vfiodp.demo.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The kubelet's rules for what a plugin advertised, from kubernetes/kubernetes
 * pkg/kubelet/cm/devicemanager/manager.go at 7510f32987 (PluginDisconnected calls
 * markResourceUnhealthy and sets the endpoint's stop time; genericDeviceUpdateCallback replaces
 * the device sets; GetCapacity counts healthy plus unhealthy as capacity, healthy as allocatable,
 * and drops a resource once stopGracePeriodExpired, endpoint.go at 0c19dc02cf, says
 * time.Since(stopTime) > endpointStopGracePeriod, 5 minutes, types.go at 28f88c77b6).
 */
class DeviceManagerTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final String T4 = "nvidia.com/T4";

    final ManualClock clock = new ManualClock(T0);
    final DeviceManager kubelet = new DeviceManager(clock);
    final Object stream = new Object();

    static ListAndWatchResponse list(String... idHealth) {
        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
        for (int i = 0; i < idHealth.length; i += 2) b.addDevices(Device.newBuilder().setID(idHealth[i]).setHealth(idHealth[i + 1]));
        return b.build();
    }

    void servingTwo() {
        kubelet.connected(T4, stream);
        kubelet.listed(T4, stream, list("a", "Healthy", "b", "Healthy"));
    }

    @Test
    void aListGivesCapacityAndAllocatableOfItsDevices() {
        kubelet.connected(T4, stream);
        kubelet.listed(T4, stream, list("a", "Healthy", "b", "Unhealthy"));

        assertThat(kubelet.capacity()).containsExactly(Map.entry(T4, new NodeResource(Set.of("a"), Set.of("b"), Optional.empty())));
        assertThat(kubelet.capacity().get(T4).capacity()).isEqualTo(2);
        assertThat(kubelet.capacity().get(T4).allocatable()).isEqualTo(1);
    }

    @Test
    void anEmptyListTakesTheDevicesAwayAtOnce() {
        servingTwo();
        kubelet.listed(T4, stream, list());

        assertThat(kubelet.capacity().get(T4)).isEqualTo(new NodeResource(Set.of(), Set.of(), Optional.empty()));
    }

    @Test
    void aStreamThatEndsLeavesTheCapacityWithEveryDeviceUnhealthyAndNothingAllocatable() {
        servingTwo();
        clock.advance(Duration.ofSeconds(3));
        kubelet.ended(T4, stream);

        NodeResource t4 = kubelet.capacity().get(T4);
        assertThat(t4).isEqualTo(new NodeResource(Set.of(), Set.of("a", "b"), Optional.of(T0.plusSeconds(3))));
        assertThat(t4.capacity()).isEqualTo(2);
        assertThat(t4.allocatable()).isZero();
    }

    @Test
    void theResourceStaysForFiveMinutesAfterTheStreamEndedAndNotASecondMore() {
        servingTwo();
        kubelet.ended(T4, stream);

        clock.advance(Duration.ofMinutes(5));
        assertThat(kubelet.capacity().get(T4).capacity()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(kubelet.capacity()).isEmpty();
    }

    @Test
    void aRegistrationWithinTheGraceKeepsTheDevicesUntilItsFirstList() {
        servingTwo();
        kubelet.ended(T4, stream);
        clock.advance(Duration.ofMinutes(4));
        Object next = new Object();
        kubelet.connected(T4, next);

        clock.advance(Duration.ofMinutes(2));
        assertThat(kubelet.capacity().get(T4)).isEqualTo(new NodeResource(Set.of(), Set.of("a", "b"), Optional.empty()));
        kubelet.listed(T4, next, list("a", "Healthy", "b", "Healthy"));
        assertThat(kubelet.capacity().get(T4).allocatable()).isEqualTo(2);
    }

    @Test
    void aStreamTheResourceNoLongerHoldsChangesNothing() {
        servingTwo();
        Object next = new Object();
        kubelet.connected(T4, next);

        kubelet.listed(T4, stream, list());
        kubelet.ended(T4, stream);

        assertThat(kubelet.capacity().get(T4)).isEqualTo(new NodeResource(Set.of("a", "b"), Set.of(), Optional.empty()));
    }

    /** readCheckpoint: resources come back with no devices and a stopped endpoint until their plugin registers. */
    @Test
    void aKubeletRestartKeepsTheResourcesWithNoDevicesForTheGrace() {
        servingTwo();
        kubelet.restarted();

        assertThat(kubelet.capacity().get(T4)).isEqualTo(new NodeResource(Set.of(), Set.of(), Optional.of(T0)));
        clock.advance(Duration.ofMinutes(5).plusSeconds(1));
        assertThat(kubelet.capacity()).isEmpty();
    }

    @Test
    void aRegisteredResourceIsNotListedBeforeItsFirstList() {
        kubelet.connected(T4, stream);

        assertThat(kubelet.capacity()).isEmpty();
    }
}
