package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.ExpectedFunction.fn;
import static io.vfiodp.host.scan.FixtureScans.pci;
import static io.vfiodp.host.scan.FixtureScans.pcis;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Fixture {@code hgx-8gpu}: 8x H100 SXM5 and 4 NVSwitches on vfio-pci, behind PCIe switches on two NUMA nodes. */
class Hgx8GpuScanTest {

    private final HostSnapshot snapshot = FixtureScans.scan("hgx-8gpu");

    private List<PciFunction> withDevice(String vendorDevice) {
        return snapshot.functions().values().stream().filter(f -> f.vendorDevice().equals(vendorDevice)).toList();
    }

    @Test
    void findsEightH100FourPerNumaNode() {
        List<PciFunction> gpus = withDevice("10de:2330");
        assertThat(gpus).extracting(PciFunction::address).containsExactlyElementsOf(pcis(
                "0000:18:00.0", "0000:19:00.0", "0000:3a:00.0", "0000:3b:00.0",
                "0000:9a:00.0", "0000:9b:00.0", "0000:ba:00.0", "0000:bb:00.0"));
        assertThat(gpus.stream().collect(Collectors.groupingBy(PciFunction::numaNode, Collectors.counting())))
                .isEqualTo(Map.of(0, 4L, 1, 4L));
        assertThat(gpus).allSatisfy(g -> {
            assertThat(g.driver()).contains("vfio-pci");
            assertThat(g.classCode()).isEqualTo(0x030200);
        });
    }

    @Test
    void findsFourNvSwitchBridgesOnVfioPci() {
        assertThat(withDevice("10de:22a3")).extracting(PciFunction::address)
                .containsExactlyElementsOf(pcis("0000:1a:00.0", "0000:3c:00.0", "0000:9c:00.0", "0000:bc:00.0"));
        assertThat(snapshot.functions().get(pci("0000:9c:00.0"))).isEqualTo(
                fn("0000:9c:00.0").ids(0x10de, 0x22a3, 0x10de, 0x1796).classAndRevision(0x068000, 0xa1)
                        .driver("vfio-pci").group(43).numa(1).bridges("0000:99:02.0", "0000:98:00.0", "0000:97:01.0").build());
    }

    @Test
    void gpusComeInPairsBehindOneSwitch() {
        Map<PciAddress, List<PciAddress>> gpusBySwitch = withDevice("10de:2330").stream().collect(Collectors.groupingBy(
                g -> g.upstreamBridges().get(1), TreeMap::new,
                Collectors.mapping(PciFunction::address, Collectors.toList())));
        assertThat(gpusBySwitch).isEqualTo(Map.of(
                pci("0000:16:00.0"), pcis("0000:18:00.0", "0000:19:00.0"),
                pci("0000:38:00.0"), pcis("0000:3a:00.0", "0000:3b:00.0"),
                pci("0000:98:00.0"), pcis("0000:9a:00.0", "0000:9b:00.0"),
                pci("0000:b8:00.0"), pcis("0000:ba:00.0", "0000:bb:00.0")));
    }

    @Test
    void everyGpuAndNvSwitchHasItsGroupNode() {
        List<Integer> vfioGroups = snapshot.functions().values().stream()
                .filter(f -> f.isBoundTo("vfio-pci")).map(f -> f.iommuGroup().getAsInt()).toList();
        assertThat(vfioGroups).hasSize(12);
        assertThat(snapshot.devNodes().groupNodes()).containsExactlyInAnyOrderElementsOf(vfioGroups);
        assertThat(snapshot.devNodes().vfioContainer()).isTrue();
    }

    @Test
    void hasNoProblems() {
        assertThat(snapshot.problems()).isEmpty();
    }
}
