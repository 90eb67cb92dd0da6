package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.SnapshotBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** How the inventory says that two GPUs sharing an IOMMU group are offered as one device. */
class SharedGroupInventoryTest {

    static final PciIds IDS = InventoryHosts.ids();

    private static InventoryReport report() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1eb8, 7);
        b.gpu("0000:3c:00.0", 0x1eb8, 7);
        HostSnapshot s = b.build();
        return InventoryReport.of(s, PolicyEngine.evaluate(s, Optional.empty(), IDS), IDS, Optional.empty(), List.of());
    }

    @Test
    void textSaysHowTheGroupIsOfferedOnBothRows() {
        assertThat(InventoryText.format(report())).contains("""
                0000:3b:00.0  10de:1eb8      030200  vfio-pci  7      -1    Healthy  exposed as nvidia.com/TU104GL_TESLA_T4
                              model: TU104GL [Tesla T4] (NVIDIA Corporation)
                              companions: 0000:3c:00.0
                              note: IOMMU group 7 is offered as this one device: 0000:3c:00.0 travels with it as a companion (VFIO gives a group to one VM only, so they are never devices of their own)
                0000:3c:00.0  10de:1eb8      030200  vfio-pci  7      -1    -        companion of 0000:3b:00.0
                              model: TU104GL [Tesla T4] (NVIDIA Corporation)
                              note: shares IOMMU group 7 with 0000:3b:00.0: VFIO gives a group to one VM only, so the group is offered as one device, 0000:3b:00.0, and this function travels with it
                """).contains("""
                RESOURCE                     KIND  DEVICES  HEALTHY
                nvidia.com/TU104GL_TESLA_T4  PCI   1        1
                """);
    }

    @Test
    void jsonCarriesTheCompanionsNote() throws Exception {
        JsonNode mate = new ObjectMapper().readTree(InventoryJson.format(report())).get("devices").get(1);

        assertThat(mate.get("id").asString()).isEqualTo("0000:3c:00.0");
        assertThat(mate.get("decision").get("outcome").asString()).isEqualTo("companion");
        assertThat(mate.get("decision").get("companionOf").asString()).isEqualTo("0000:3b:00.0");
        assertThat(mate.get("decision").get("notes").get(0).asString()).startsWith("shares IOMMU group 7 with 0000:3b:00.0");
    }
}
