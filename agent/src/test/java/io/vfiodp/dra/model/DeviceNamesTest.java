package io.vfiodp.dra.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A device's name in the pool, and back to the ID it stands for. */
class DeviceNamesTest {

    @Test
    void aPciFunctionsNameReadsAsItsAddressAndGoesBackToIt() {
        PciAddress a = PciAddress.parse("0000:3b:00.1");
        ExposedDevice d = new ExposedDevice(a.toString(), DeviceKind.PCI, a, 12, 0, List.of(), Optional.empty(), List.of(), Health.HEALTHY);

        assertThat(DeviceNames.of(d)).isEqualTo("pci-0000-3b-00-1");
        assertThat(DeviceNames.idOf("pci-0000-3b-00-1")).contains("0000:3b:00.1");
    }

    @Test
    void anMdevsNameGoesBackToItsUuid() {
        assertThat(DeviceNames.idOf("mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27")).contains("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27");
    }

    @Test
    void aNameOfAnotherFormStandsForNoId() {
        assertThat(DeviceNames.idOf("gpu-0")).isEmpty();
        assertThat(DeviceNames.idOf("pci-0000-3b-00")).isEmpty();
        assertThat(DeviceNames.idOf("mdev-")).isEmpty();
    }
}
