package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefaultNameAllocatorTest {

    static DefaultNameAllocator.Request pci(String device, String rawName, String model) {
        return new DefaultNameAllocator.Request("pci:10de:" + device, rawName, device, device, "10de:" + device + " '" + model + "'");
    }

    @Test
    void distinctModelsKeepTheirPlainNames() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("1eb8", "TU104GL_TESLA_T4", "TU104GL [Tesla T4]"),
                pci("20b5", "GA100_A100_PCIE_80GB", "GA100 [A100 PCIe 80GB]")));
        assertThat(names).containsExactly(
                Map.entry("pci:10de:1eb8", new DefaultNameAllocator.Allocation(ResourceName.of("nvidia.com/TU104GL_TESLA_T4"), List.of())),
                Map.entry("pci:10de:20b5", new DefaultNameAllocator.Allocation(ResourceName.of("nvidia.com/GA100_A100_PCIE_80GB"), List.of())));
    }

    @Test
    void sameModelAskedTwiceIsOneName() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("1eb8", "TU104GL_TESLA_T4", "TU104GL [Tesla T4]"),
                pci("1eb8", "TU104GL_TESLA_T4", "TU104GL [Tesla T4]")));
        assertThat(names).hasSize(1);
        assertThat(names.get("pci:10de:1eb8").name()).isEqualTo(ResourceName.of("nvidia.com/TU104GL_TESLA_T4"));
    }

    @Test
    void twoModelsOnOneNameEachGetTheirDeviceId() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("20b1", "GA100_A100_PCIE_40GB", "GA100 [A100 PCIe 40GB]"),
                pci("20f1", "GA100_A100_PCIE_40GB", "GA100 [A100 PCIe 40GB]")));
        assertThat(names.get("pci:10de:20b1")).isEqualTo(new DefaultNameAllocator.Allocation(
                ResourceName.of("nvidia.com/GA100_A100_PCIE_40GB_20b1"),
                List.of("'nvidia.com/GA100_A100_PCIE_40GB' is also the name of 10de:20f1 'GA100 [A100 PCIe 40GB]'; added _20b1 to keep them apart")));
        assertThat(names.get("pci:10de:20f1")).isEqualTo(new DefaultNameAllocator.Allocation(
                ResourceName.of("nvidia.com/GA100_A100_PCIE_40GB_20f1"),
                List.of("'nvidia.com/GA100_A100_PCIE_40GB' is also the name of 10de:20b1 'GA100 [A100 PCIe 40GB]'; added _20f1 to keep them apart")));
    }

    // found by MdevTypeNameProperties: 'GRID T4-1Q' and 'grid t4-1q' were served under two names
    // that KubeVirt reads from one variable, MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q
    @Test
    void typeNamesThatDifferOnlyInCaseOrDotAreKeptApartBecauseTheyShareAnEnvVariable() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                new DefaultNameAllocator.Request("mdev:GRID T4-1Q", "GRID_T4-1Q", "nvidia-230", "nvidia-230", "mdev type 'GRID T4-1Q'"),
                new DefaultNameAllocator.Request("mdev:grid t4-1q", "grid_t4-1q", "nvidia-231", "nvidia-231", "mdev type 'grid t4-1q'"),
                new DefaultNameAllocator.Request("mdev:GRID T4.2Q", "GRID_T4.2Q", "nvidia-232", "nvidia-232", "mdev type 'GRID T4.2Q'"),
                new DefaultNameAllocator.Request("mdev:GRID T4_2Q", "GRID_T4_2Q", "nvidia-233", "nvidia-233", "mdev type 'GRID T4_2Q'")));

        assertThat(names.values()).extracting(a -> a.name().value()).containsExactly(
                "nvidia.com/GRID_T4-1Q_nvidia-230", "nvidia.com/GRID_T4.2Q_nvidia-232", "nvidia.com/GRID_T4_2Q_nvidia-233",
                "nvidia.com/grid_t4-1q_nvidia-231");
        assertThat(names.get("mdev:grid t4-1q").notes()).containsExactly("'nvidia.com/grid_t4-1q' is also read by virt-launcher"
                + " from the variable of mdev type 'GRID T4-1Q'; added _nvidia-231 to keep them apart");
    }

    @Test
    void namesThatMeetOnlyAfterRepairAreKeptApart() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("2233", "GA104_RTX_A4500_EMBEDDED_GPU_", "GA104 [RTX A4500 Embedded GPU ]"),
                pci("2234", "GA104_RTX_A4500_EMBEDDED_GPU", "GA104 [RTX A4500 Embedded GPU]")));
        assertThat(names.get("pci:10de:2233").name()).isEqualTo(ResourceName.of("nvidia.com/GA104_RTX_A4500_EMBEDDED_GPU_2233"));
        assertThat(names.get("pci:10de:2234").name()).isEqualTo(ResourceName.of("nvidia.com/GA104_RTX_A4500_EMBEDDED_GPU_2234"));
        assertThat(names.get("pci:10de:2233").notes()).containsExactly(
                "'GA104_RTX_A4500_EMBEDDED_GPU_' is not a valid resource name; using 'GA104_RTX_A4500_EMBEDDED_GPU'"
                        + " (trimmed leading/trailing characters that are not letters or digits)",
                "'nvidia.com/GA104_RTX_A4500_EMBEDDED_GPU' is also the name of 10de:2234 'GA104 [RTX A4500 Embedded GPU]'; added _2233 to keep them apart");
    }

    @Test
    void suffixedNameThatMeetsAThirdModelGetsAHash() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("1111", "X", "X"),
                pci("2222", "X", "X"),
                pci("3333", "X_1111", "X 1111")));
        List<ResourceName> all = names.values().stream().map(DefaultNameAllocator.Allocation::name).toList();
        assertThat(all).doesNotHaveDuplicates();
        assertThat(names.get("pci:10de:2222").name()).isEqualTo(ResourceName.of("nvidia.com/X_2222"));
        assertThat(names.get("pci:10de:1111").name())
                .isEqualTo(ResourceName.of("nvidia.com/X_1111_" + DefaultNames.shortHash("pci:10de:1111")));
        assertThat(names.get("pci:10de:3333").name())
                .isEqualTo(ResourceName.of("nvidia.com/X_1111_" + DefaultNames.shortHash("pci:10de:3333")));
    }

    @Test
    void longCollidingNamesStayDistinctAndValid() {
        String raw = "NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870___TESLA_S1070___TESLA_S2050";
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                pci("05b8", raw, "NF200"), pci("05b9", raw, "NF200")));
        ResourceName a = names.get("pci:10de:05b8").name();
        ResourceName b = names.get("pci:10de:05b9").name();
        assertThat(a).isNotEqualTo(b);
        assertThat(a.name()).hasSizeLessThanOrEqualTo(63);
        assertThat(b.name()).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void nameWithNothingUsableFallsBack() {
        Map<String, DefaultNameAllocator.Allocation> names = DefaultNameAllocator.allocate(List.of(
                new DefaultNameAllocator.Request("mdev:???", "???", "nvidia-9", "nvidia-9", "mdev type nvidia-9 '???'")));
        assertThat(names.get("mdev:???")).isEqualTo(new DefaultNameAllocator.Allocation(
                ResourceName.of("nvidia.com/nvidia-9"), List.of("'???' leaves no valid resource name; using 'nvidia-9'")));
    }
}
