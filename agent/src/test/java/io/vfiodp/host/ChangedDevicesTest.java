package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ChangedDevicesTest {

    @Test
    void changesMergeIntoTheirUnion() {
        ChangedDevices a = ChangedDevices.function(pci("0000:01:00.0"));
        ChangedDevices b = ChangedDevices.of(Set.of(pci("0000:02:00.0")), Set.of("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27"));

        assertThat(a.plus(b)).isEqualTo(ChangedDevices.of(Set.of(pci("0000:01:00.0"), pci("0000:02:00.0")),
                Set.of("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27")));
        assertThat(a.plus(ChangedDevices.NONE)).isSameAs(a);
    }

    private static PciAddress pci(String address) {
        return PciAddress.parse(address);
    }
}
