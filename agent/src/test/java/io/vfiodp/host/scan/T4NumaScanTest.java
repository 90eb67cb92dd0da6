package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.ExpectedFunction.fn;
import static io.vfiodp.host.scan.FixtureScans.pci;
import static io.vfiodp.host.scan.FixtureScans.pcis;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Fixture {@code t4-numa}: 4x T4 on two NUMA nodes behind switches, an A100 on nvidia, an NVMe on vfio-pci. */
class T4NumaScanTest {

    private final HostSnapshot snapshot = FixtureScans.scan("t4-numa");

    @Test
    void findsTheFourTeslaT4OnVfioPci() {
        Map<PciAddress, Integer> numaOfT4s = snapshot.functions().values().stream()
                .filter(f -> f.vendorDevice().equals("10de:1eb8"))
                .collect(Collectors.toMap(PciFunction::address, PciFunction::numaNode));
        assertThat(numaOfT4s).isEqualTo(Map.of(
                pci("0000:1a:00.0"), 0, pci("0000:1b:00.0"), 0, pci("0000:b1:00.0"), 1, pci("0000:b2:00.0"), 1));
        assertThat(snapshot.functions().get(pci("0000:1a:00.0"))).isEqualTo(
                fn("0000:1a:00.0").ids(0x10de, 0x1eb8, 0x10de, 0x12a2).classAndRevision(0x030200, 0xa1)
                        .driver("vfio-pci").group(24).numa(0).bridges("0000:19:08.0", "0000:18:00.0", "0000:17:00.0").build());
    }

    @Test
    void pairsOnOneNodeSitBehindTheSameSwitch() {
        Function<String, PciAddress> switchUpstream = a -> snapshot.functions().get(pci(a)).upstreamBridges().get(1);
        assertThat(switchUpstream.apply("0000:1a:00.0")).isEqualTo(pci("0000:18:00.0"));
        assertThat(switchUpstream.apply("0000:1b:00.0")).isEqualTo(pci("0000:18:00.0"));
        assertThat(switchUpstream.apply("0000:b1:00.0")).isEqualTo(pci("0000:af:00.0"));
        assertThat(switchUpstream.apply("0000:b2:00.0")).isEqualTo(pci("0000:af:00.0"));
        assertThat(snapshot.functions().get(pci("0000:b2:00.0")).upstreamBridges())
                .containsExactlyElementsOf(pcis("0000:b0:10.0", "0000:af:00.0", "0000:ae:00.0"));
    }

    @Test
    void theA100StaysOnTheNvidiaDriver() {
        assertThat(snapshot.functions().get(pci("0000:3b:00.0"))).isEqualTo(
                fn("0000:3b:00.0").ids(0x10de, 0x20b5, 0x10de, 0x1533).classAndRevision(0x030200, 0xa1)
                        .driver("nvidia").group(31).numa(0).bridges("0000:3a:00.0").build());
    }

    @Test
    void theNvmeIsAnIntelDeviceOnVfioPci() {
        assertThat(snapshot.functions().get(pci("0000:5e:00.0"))).isEqualTo(
                fn("0000:5e:00.0").ids(0x8086, 0x0a54, 0x8086, 0x4802).classAndRevision(0x010802, 0x00)
                        .driver("vfio-pci").group(41).numa(0).bridges("0000:5d:00.0").build());
    }

    @Test
    void hostBridgeWithoutDriverHasNone() {
        assertThat(snapshot.functions().get(pci("0000:00:00.0")).driver()).isEmpty();
    }

    @Test
    void everyFunctionIsAloneInItsGroup() {
        assertThat(snapshot.groups().values()).allSatisfy(g -> assertThat(g.members()).hasSize(1));
        assertThat(snapshot.groups()).hasSize(snapshot.functions().size());
    }

    @Test
    void theLastT4sGroupNodeIsMissing() {
        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.of(true, Set.of(24, 25, 41, 64), false, Set.of()));
        assertThat(snapshot.devNodes().hasGroupNode(65)).isFalse();
    }

    @Test
    void hasNoProblems() {
        assertThat(snapshot.problems()).isEmpty();
    }
}
