package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TargetStateTest {

    static final ExposedDevice GPU = new ExposedDevice("0000:3b:00.0", DeviceKind.PCI, PciAddress.parse("0000:3b:00.0"), 3, 0, List.of(),
            Optional.empty(), List.of(), Health.HEALTHY);
    static final DeviceProfile PROFILE = new DeviceProfile(DraKind.PASSTHROUGH, 0x10de, 0x1eb8, Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty());

    static DraOffer offer(String resource) {
        return new DraOffer(DesiredState.of(List.of(new DesiredResource(ResourceName.of(resource), DeviceKind.PCI, List.of(GPU)))),
                new TreeMap<>(Map.of(GPU.id(), PROFILE)));
    }

    static DesiredState plugins(String resource) {
        return DesiredState.of(List.of(new DesiredResource(ResourceName.of(resource), DeviceKind.PCI, List.of(GPU))));
    }

    @Test
    void aDeviceIsNeverOfferedBothWays() {
        assertThatThrownBy(() -> new TargetState(plugins("a.io/x"), DevNodes.NONE, offer("a.io/y")))
                .hasMessage("device 0000:3b:00.0 is offered both by a device plugin and through DRA");
    }

    @Test
    void aResourceIsNeverServedBothWays() {
        assertThatThrownBy(() -> new TargetState(DesiredState.of(List.of(new DesiredResource(ResourceName.of("a.io/x"), DeviceKind.PCI, List.of()))),
                DevNodes.NONE, offer("a.io/x"))).hasMessage("resource a.io/x is served both by a device plugin and through DRA");
    }

    @Test
    void aDraOfferNeedsAProfilePerDevice() {
        assertThatThrownBy(() -> new DraOffer(plugins("a.io/x"), new TreeMap<>())).hasMessage("DRA device 0000:3b:00.0 has no profile");
    }
}
