package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DeviceAttributes;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.model.NumaForm;
import io.vfiodp.host.NumaTopology;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.scan.NumaTopologyReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KEP-6072's {@code resource.kubernetes.io/numaNode}: the scalar form, and the list form the
 * operator chooses ({@code --dra-numa-form list}), made from the host's ACPI SLIT, on a two-socket
 * EPYC in NPS2 (nodes 0 and 1 on socket 0, 2 and 3 on socket 1; 12 within a socket, 32 across).
 */
class NumaNodeAttributeTest {

    private static final NumaTopology EPYC = NumaTopologyReader.read(SysfsFixtures.sys("epyc-2s-slit"));

    @TempDir Path root;

    private static Map<String, Optional<AttributeValue>> numaNodes(String node, NumaForm form) {
        return DriverView.of(DraNodes.allDra(node), form).devices().values().stream().collect(Collectors.toMap(
                d -> d.device().id(), d -> Optional.ofNullable(d.attributes().get(DeviceAttributes.NUMA_NODE)), (a, b) -> a, TreeMap::new));
    }

    private static AttributeValue ints(long... values) {
        return new AttributeValue.Ints(java.util.Arrays.stream(values).boxed().toList());
    }

    @Test
    void theListHoldsTheDevicesNodeFirstThenTheOtherNodeOfItsSocket() {
        assertThat(numaNodes("epyc-2s-slit", NumaForm.list(EPYC))).containsExactly(
                Map.entry("0000:01:00.0", Optional.of(ints(0, 1))), Map.entry("0000:41:00.0", Optional.of(ints(1, 0))),
                Map.entry("0000:81:00.0", Optional.of(ints(2, 3))), Map.entry("0000:c1:00.0", Optional.of(ints(3, 2))));
    }

    @Test
    void theScalarFormIsTheDevicesNodeAlone() {
        assertThat(numaNodes("epyc-2s-slit", NumaForm.SCALAR)).containsExactly(
                Map.entry("0000:01:00.0", Optional.of(new AttributeValue.Int(0))), Map.entry("0000:41:00.0", Optional.of(new AttributeValue.Int(1))),
                Map.entry("0000:81:00.0", Optional.of(new AttributeValue.Int(2))), Map.entry("0000:c1:00.0", Optional.of(new AttributeValue.Int(3))));
    }

    @Test
    void aDeviceWithoutANumaNodeHasNoAttributeInEitherForm() {
        // the workstation's kernel has no NUMA: numa_node is -1 everywhere
        assertThat(numaNodes("workstation", NumaForm.list(NumaTopologyReader.read(SysfsFixtures.sys("workstation")))).values())
                .isNotEmpty().containsOnly(Optional.empty());
        assertThat(numaNodes("workstation", NumaForm.SCALAR).values()).isNotEmpty().containsOnly(Optional.empty());
    }

    @Test
    void aNodeWithoutDistancesListsItselfAlone() {
        // t4-numa shows numa_node 0 and 1 but no SLIT
        assertThat(numaNodes("t4-numa", NumaForm.list(NumaTopologyReader.read(SysfsFixtures.sys("t4-numa")))).values())
                .contains(Optional.of(ints(0)), Optional.of(ints(1))).doesNotContain(Optional.empty());
    }

    @Test
    void aNodeOfAnotherSocketAtTheSmallestDistanceIsLeftOutAndOneOfUnknownSocketIsNot() {
        NumaTopology t = new NumaTopology(new TreeMap<>(Map.of(
                0, new NumaTopology.Node(List.of(10, 16, 16, 16), java.util.OptionalInt.of(0)),
                1, new NumaTopology.Node(List.of(16, 10, 16, 16), java.util.OptionalInt.of(0)),
                2, new NumaTopology.Node(List.of(16, 16, 10, 16), java.util.OptionalInt.of(1)),
                3, new NumaTopology.Node(List.of(16, 16, 16, 10), java.util.OptionalInt.empty()))));
        assertThat(t.localNodes(0)).containsExactly(0, 1, 3);
        assertThat(t.localNodes(3)).containsExactly(3, 0, 1, 2);
        assertThat(NumaTopology.NONE.localNodes(5)).containsExactly(5);
    }

    @Test
    void theSlicesCarryTheListAsIntsAndTheCheckpointKeepsIt() throws IOException {
        DraSettings settings = DraNodes.settings(root).withNumaForm(NumaForm.list(EPYC));
        try (DraHarness h = new DraHarness(root, settings).start(DraNodes.allDra("epyc-2s-slit"))) {
            Device gpu = await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().stream().flatMap(s -> s.getSpec().getDevices().stream())
                    .filter(d -> d.getName().equals("pci-0000-c1-00-0")).findFirst(), Optional::isPresent).orElseThrow();
            DeviceAttribute numa = gpu.getAttributes().get(DeviceAttributes.NUMA_NODE);
            assertThat(numa.getInts()).containsExactly(3L, 2L);
            assertThat(numa.getInt()).isNull();
        }
        Checkpoint checkpoint = new Checkpoint(root.resolve("checkpoint"), DraNodes.DRIVER);
        PreparedClaim claim = new PreparedClaim("uid-1", "vms", "gpu", Optional.empty(), List.of(new PreparedDevice("gpu", "node-a",
                "pci-0000-c1-00-0", "0000:c1:00.0", List.of("/dev/vfio/vfio", "/dev/vfio/41"), new TreeMap<>(Map.of(DeviceAttributes.NUMA_NODE,
                ints(3, 2))))));
        checkpoint.save(List.of(claim));
        assertThat(checkpoint.load(new ClaimFiles(DraNodes.DRIVER, root.resolve("checkpoint"), root.resolve("cdi"))))
                .isEqualTo(new Checkpoint.Loaded(new TreeMap<>(Map.of("uid-1", claim))));
    }
}
