package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.vfio.VfioAvailability;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The inventory says what {@code /dev/vfio/vfio} answered, in both formats. */
class InventoryVfioTest {

    private static InventoryReport workstation() {
        return InventoryFormatTest.defaultReport(InventoryHosts.workstation().build());
    }

    @Test
    void textShowsUnavailableVfioWithItsReasonUnderTheConfiguration() {
        String text = InventoryText.format(workstation(), Optional.of(new VfioAvailability.Unavailable("/dev/vfio/vfio does not exist")));

        assertThat(text.lines().limit(4)).containsExactly(
                "pci.ids: test pci.ids",
                "configuration: none (default: NVIDIA GPUs, NVSwitches and vGPUs)",
                "vfio: VFIO unavailable: /dev/vfio/vfio does not exist",
                "");
    }

    @Test
    void textShowsAvailableVfioWithApiVersionAndBackends() {
        String text = InventoryText.format(workstation(), Optional.of(new VfioAvailability.Available(0, true, false)));

        assertThat(text.lines().skip(2).findFirst()).contains("vfio: VFIO available: API version 0, type1 IOMMU yes, type1v2 IOMMU no");
    }

    @Test
    void textWithoutACheckHasNoVfioLine() {
        assertThat(InventoryText.format(workstation(), Optional.empty())).isEqualTo(InventoryText.format(workstation()));
    }

    @Test
    void jsonCarriesUnavailableWithReason() throws Exception {
        JsonNode vfio = new ObjectMapper().readTree(InventoryJson.format(workstation(),
                Optional.of(new VfioAvailability.Unavailable("/dev/vfio/vfio does not exist")))).get("vfio");

        assertThat(vfio.toString()).isEqualTo("{\"available\":false,\"reason\":\"/dev/vfio/vfio does not exist\"}");
    }

    @Test
    void jsonCarriesAvailableWithVersionAndBackends() throws Exception {
        JsonNode vfio = new ObjectMapper().readTree(InventoryJson.format(workstation(),
                Optional.of(new VfioAvailability.Available(0, true, true)))).get("vfio");

        assertThat(vfio.toString()).isEqualTo("{\"available\":true,\"apiVersion\":0,\"type1Iommu\":true,\"type1v2Iommu\":true}");
    }
}
