package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.PolicyEngine;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The inventory says which way each device goes: device plugin or DRA, and under which DRA name. */
class InventoryDraTest {

    static InventoryReport report(String routing) throws Exception {
        HostSnapshot s = new SysfsScanner(SysfsFixtures.sys("t4-vgpu"), SysfsFixtures.dev("t4-vgpu")).scan();
        PciIds ids = PciIds.bundled();
        return InventoryReport.of(s, PolicyEngine.evaluate(s, Optional.empty(), ids), ids, Optional.empty(), List.of(), DraRouting.parse(routing));
    }

    @Test
    void textMarksTheDraDevicesAndTheirResources() throws Exception {
        String text = InventoryText.format(report("nvidia.com/GRID_T4-2Q"));
        assertThat(text).contains("dra: nvidia.com/GRID_T4-2Q (served through DRA; every other resource through device plugins)\n");
        assertThat(text).contains("exposed through DRA as nvidia.com/GRID_T4-2Q\n");
        assertThat(text).contains("DRA: device mdev-7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13 in this node's pool;"
                + " claim it, or ask nvidia.com/GRID_T4-2Q in a resource limit once its DeviceClass (--device-classes) is applied\n");
        assertThat(text).containsPattern("nvidia.com/GRID_T4-1Q +MDEV +3 +3 +device-plugin\n");
        assertThat(text).containsPattern("nvidia.com/GRID_T4-2Q +MDEV +2 +2 +dra\n");
    }

    @Test
    void withoutRoutingTheTextIsAsBefore() throws Exception {
        String text = InventoryText.format(report("none"));
        assertThat(text).doesNotContain("dra").doesNotContain("VIA").contains("exposed as nvidia.com/GRID_T4-2Q\n");
    }

    @Test
    void jsonNamesTheRouteOfEveryResourceAndExposedDevice() throws Exception {
        JsonNode root = new JsonMapper().readTree(InventoryJson.format(report("nvidia.com/GRID_T4-2Q")));
        assertThat(root.get("dra").asString()).isEqualTo("nvidia.com/GRID_T4-2Q");
        for (JsonNode d : root.get("devices")) {
            JsonNode decision = d.get("decision");
            if (!decision.get("outcome").asString().equals("exposed")) continue;
            boolean dra = decision.get("resource").asString().equals("nvidia.com/GRID_T4-2Q");
            assertThat(decision.get("via").asString()).isEqualTo(dra ? "dra" : "device-plugin");
            assertThat(decision.get("draDevice").isNull()).isEqualTo(!dra);
            if (dra) assertThat(decision.get("draDevice").asString()).isEqualTo("mdev-" + d.get("id").asString());
        }
        assertThat(root.get("resources")).extracting(r -> r.get("name").asString() + "=" + r.get("via").asString())
                .containsExactly("nvidia.com/GRID_T4-1Q=device-plugin", "nvidia.com/GRID_T4-2Q=dra");
    }
}
