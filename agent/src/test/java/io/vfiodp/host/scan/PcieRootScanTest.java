package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.fixtures.SysfsTreeWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PCIe root a function reports is the first directory below {@code devices/}, as Kubernetes'
 * {@code deviceattribute.resolvePCIeRoot} reads it from the {@code bus/pci/devices} link.
 */
class PcieRootScanTest {

    @TempDir Path node;

    @Test
    void functionsBehindSwitchesReportTheirRootBus() {
        HostSnapshot s = FixtureScans.scan("t4-numa");
        assertThat(s.function(PciAddress.parse("0000:1a:00.0")).orElseThrow().pcieRoot()).contains("pci0000:17");
        assertThat(s.function(PciAddress.parse("0000:b2:00.0")).orElseThrow().pcieRoot()).contains("pci0000:ae");
        assertThat(s.function(PciAddress.parse("0000:17:00.0")).orElseThrow().pcieRoot()).contains("pci0000:17");
    }

    @Test
    void virtualFunctionsShareTheRootOfTheirPhysicalFunction() {
        HostSnapshot s = FixtureScans.scan("l40s-sriov");
        assertThat(s.function(PciAddress.parse("0000:41:00.4")).orElseThrow().pcieRoot()).contains("pci0000:40");
        assertThat(s.function(PciAddress.parse("0000:c1:00.5")).orElseThrow().pcieRoot()).contains("pci0000:c0");
    }

    @Test
    void aRootNestedBehindAnotherDeviceIsNotTheOneReported() {
        SysfsTreeWriter tree = new SysfsTreeWriter(node);
        tree.rootBus(0, 0, -1).function("0000:00:0e.0").ids(0x8086, 0x467f).classCode(0x010400).write();
        // A VMD controller's own PCI domain shows as a second root inside the controller's directory.
        new SysfsTreeWriter.Bus(tree, tree.sys().resolve("devices/pci0000:00/0000:00:0e.0/pci1000:00"), -1)
                .function("1000:00:01.0").ids(0x10de, 0x1eb8).classCode(0x030200).driver("vfio-pci").group(7).write();
        HostSnapshot s = new SysfsScanner(tree.sys(), tree.dev()).scan();
        assertThat(s.function(PciAddress.parse("1000:00:01.0")).orElseThrow().pcieRoot()).contains("pci0000:00");
    }

    @Test
    void aFunctionOutsideAPciRootReportsNone() {
        SysfsTreeWriter tree = new SysfsTreeWriter(node);
        new SysfsTreeWriter.Bus(tree, tree.sys().resolve("devices/platform/soc"), -1)
                .function("0000:00:01.0").ids(0x10de, 0x1eb8).classCode(0x030200).driver("vfio-pci").group(3).write();
        HostSnapshot s = new SysfsScanner(tree.sys(), tree.dev()).scan();
        assertThat(s.function(PciAddress.parse("0000:00:01.0")).orElseThrow().pcieRoot()).isEqualTo(Optional.empty());
    }
}
