package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.FixtureScans.pci;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevType;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Fixture {@code t4-vgpu}: two T4 on nvidia with mdev types; 3x GRID T4-1Q and 2x GRID T4-2Q created. */
class T4VgpuScanTest {

    private static final List<String> T4_TYPE_IDS = List.of("nvidia-222", "nvidia-223", "nvidia-224", "nvidia-225",
            "nvidia-226", "nvidia-230", "nvidia-231", "nvidia-232", "nvidia-319");

    private final HostSnapshot snapshot = FixtureScans.scan("t4-vgpu");

    @Test
    void bothT4sAreMdevParentsWithAllTheirTypesSortedById() {
        assertThat(snapshot.mdevParents().keySet()).containsExactly(pci("0000:3b:00.0"), pci("0000:d9:00.0"));
        assertThat(snapshot.mdevParents().values()).allSatisfy(p ->
                assertThat(p.types()).extracting(MdevType::id).containsExactlyElementsOf(T4_TYPE_IDS));
    }

    @Test
    void readsEveryFileOfAType() {
        MdevType oneQ = snapshot.mdevParents().get(pci("0000:3b:00.0")).types().get(5);
        assertThat(oneQ).isEqualTo(new MdevType("nvidia-230", Optional.of("GRID T4-1Q"), 13, "vfio-pci",
                Optional.of("num_heads=4, frl_config=60, framebuffer=1024M, max_resolution=5120x2880, max_instance=16")));
    }

    @Test
    void onlyThePlacedTypeStaysAvailable() {
        assertThat(snapshot.mdevParents().get(pci("0000:d9:00.0")).types())
                .filteredOn(t -> t.availableInstances() > 0)
                .extracting(MdevType::id, MdevType::availableInstances)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("nvidia-231", 6));
    }

    @Test
    void aTypeWithoutNameFileHasNoNameAndShowsItsId() {
        MdevType nameless = snapshot.mdevParents().get(pci("0000:d9:00.0")).types().get(8);
        assertThat(nameless.id()).isEqualTo("nvidia-319");
        assertThat(nameless.name()).isEmpty();
        assertThat(nameless.displayName()).isEqualTo("nvidia-319");
        assertThat(snapshot.mdevParents().get(pci("0000:3b:00.0")).types().get(8).name()).contains("GRID T4-4C");
    }

    @Test
    void findsTheFiveInstancesWithTypeParentAndOwnGroup() {
        assertThat(snapshot.mdevs().values()).containsExactly(
                new MdevInstance("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "nvidia-230", "GRID T4-1Q", pci("0000:3b:00.0"), 100),
                new MdevInstance("5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30", "nvidia-230", "GRID T4-1Q", pci("0000:3b:00.0"), 101),
                new MdevInstance("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "nvidia-231", "GRID T4-2Q", pci("0000:d9:00.0"), 103),
                new MdevInstance("c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59", "nvidia-230", "GRID T4-1Q", pci("0000:3b:00.0"), 102),
                new MdevInstance("e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64", "nvidia-231", "GRID T4-2Q", pci("0000:d9:00.0"), 104));
    }

    @Test
    void mdevGroupsHaveNoPciMembers() {
        for (int g = 100; g <= 104; g++) assertThat(snapshot.groups().get(g)).isEqualTo(new IommuGroup(g, List.of()));
    }

    @Test
    void theParentsStayOnNvidiaAndAreNotVgpuVfs() {
        assertThat(snapshot.functions().get(pci("0000:3b:00.0")).driver()).contains("nvidia");
        assertThat(snapshot.functions().get(pci("0000:d9:00.0")).numaNode()).isEqualTo(1);
        assertThat(snapshot.vgpuVfs()).isEmpty();
    }

    @Test
    void hasAGroupNodePerMdevAndNoProblems() {
        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.of(true, Set.of(100, 101, 102, 103, 104), false, Set.of()));
        assertThat(snapshot.problems()).isEmpty();
    }
}
