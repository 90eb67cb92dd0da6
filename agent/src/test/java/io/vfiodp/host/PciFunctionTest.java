package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** What a function's class code and vendor make of it. */
class PciFunctionTest {

    private static PciFunction function(int vendor, int classCode) {
        return new PciFunction(PciAddress.parse("0000:3b:00.0"), vendor, 0x1234, 0, 0, classCode, 0xa1, Optional.empty(), OptionalInt.empty(),
                -1, false, Optional.empty(), List.of(), OptionalInt.empty(), Optional.empty(), List.of(), Optional.empty());
    }

    @Test
    void aPciToPciBridgeIsABridgeWhateverItsProgrammingInterface() {
        assertThat(List.of(function(0x8086, 0x060400).isPciBridge(), function(0x8086, 0x060401).isPciBridge())).containsExactly(true, true);
    }

    @Test
    void aHostBridgeIsNoPciBridge() {
        assertThat(function(0x8086, 0x060000).isPciBridge()).isFalse();
    }

    @Test
    void anNvidiaDeviceOfClass0680IsAnNvSwitch() {
        assertThat(function(PciFunction.VENDOR_NVIDIA, 0x068000).isNvSwitch()).isTrue();
    }

    @Test
    void anotherVendorsDeviceOfClass0680IsNoNvSwitch() {
        assertThat(function(0x8086, 0x068000).isNvSwitch()).isFalse();
    }

    @Test
    void anNvidiaGpuIsNoNvSwitch() {
        assertThat(function(PciFunction.VENDOR_NVIDIA, 0x030200).isNvSwitch()).isFalse();
    }
}
