package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class InventoryFormatTest {

    static final PciIds IDS = InventoryHosts.ids();

    static InventoryReport defaultReport(HostSnapshot s) {
        return InventoryReport.of(s, PolicyEngine.evaluate(s, Optional.empty(), IDS), IDS, Optional.empty(), List.of());
    }

    @Test
    void textShowsOneRowPerDeviceWithDetailsResourcesAndScanProblemsAndANonViableGroup() {
        assertThat(InventoryText.format(defaultReport(InventoryHosts.workstation().build()))).isEqualTo("""
                pci.ids: test pci.ids
                configuration: none (default: NVIDIA GPUs, NVSwitches and vGPUs)

                DEVICE        VENDOR:DEVICE  CLASS   DRIVER    IOMMU  NUMA  HEALTH     DECISION
                0000:00:02.0  8086:3e92      030000  i915      0      -1    -          skipped: vendor 8086 (Intel Corporation) is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed (permit it with a pciHostDevices entry)
                              model: CoffeeLake-S GT2 [UHD Graphics 630] (Intel Corporation)
                0000:01:00.0  10de:1f08      030000  vfio-pci  1      0     Unhealthy  exposed as nvidia.com/TU106_GEFORCE_RTX_2060_REV__A
                              model: TU106 [GeForce RTX 2060 Rev. A] (NVIDIA Corporation)
                              companions: 0000:01:00.1, 0000:01:00.2, 0000:01:00.3
                              note: companion 0000:01:00.3 is bound to ucsi_ccg, not a VFIO driver: VFIO refuses IOMMU group 1 (not viable) until it is bound to vfio-pci
                              unhealthy: group 1 not viable: 0000:01:00.3 bound to ucsi_ccg
                0000:01:00.1  10de:10f9      040300  vfio-pci  1      0     -          companion of 0000:01:00.0
                              model: TU106 High Definition Audio Controller (NVIDIA Corporation)
                0000:01:00.2  10de:1ada      0c0330  vfio-pci  1      0     -          companion of 0000:01:00.0
                              model: TU106 USB 3.1 Host Controller (NVIDIA Corporation)
                0000:01:00.3  10de:1adb      0c8000  ucsi_ccg  1      0     -          companion of 0000:01:00.0
                              model: TU106 USB Type-C UCSI Controller (NVIDIA Corporation)
                0000:05:10.0  8086:1520      020000  vfio-pci  20     0     -          skipped: vendor 8086 (Intel Corporation) is not NVIDIA: without --config only NVIDIA GPUs and NVSwitches are exposed (permit it with a pciHostDevices entry)
                              model: I350 Ethernet Controller Virtual Function (Intel Corporation)

                RESOURCE                                  KIND  DEVICES  HEALTHY
                nvidia.com/TU106_GEFORCE_RTX_2060_REV__A  PCI   1        0

                scan problems:
                  bus/pci/devices/0000:06:00.0/vendor: not hex: 'zz'
                """);
    }

    @Test
    void textShowsMdevRowsAndWhyADeviceIsUnhealthy() {
        assertThat(InventoryText.format(defaultReport(InventoryHosts.t4Vgpu().build()))).isEqualTo("""
                pci.ids: test pci.ids
                configuration: none (default: NVIDIA GPUs, NVSwitches and vGPUs)

                DEVICE                                VENDOR:DEVICE  CLASS   DRIVER  IOMMU  NUMA  HEALTH     DECISION
                0000:3b:00.0                          10de:1eb8      030200  nvidia  12     0     -          skipped: bound to nvidia: the host uses it (bind it to vfio-pci to pass it through)
                                                      model: TU104GL [Tesla T4] (NVIDIA Corporation)
                1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c  10de:1eb8      mdev    -       101    0     Healthy    exposed as nvidia.com/GRID_T4-1B
                                                      mdev type: nvidia-222 'GRID T4-1B', parent 0000:3b:00.0 (TU104GL [Tesla T4])
                2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d  10de:1eb8      mdev    -       102    0     Unhealthy  exposed as nvidia.com/GRID_T4-1B
                                                      mdev type: nvidia-222 'GRID T4-1B', parent 0000:3b:00.0 (TU104GL [Tesla T4])
                                                      unhealthy: IOMMU group 102: /dev/vfio/102 missing

                RESOURCE               KIND  DEVICES  HEALTHY
                nvidia.com/GRID_T4-1B  MDEV  2        1

                scan problems: none
                """);
    }

    @Test
    void textShowsVgpuTypesOfSriovVfs() {
        assertThat(InventoryText.format(defaultReport(InventoryHosts.l40s().build()))).contains("""
                0000:41:00.4  10de:26b9      030200  nvidia  31     1     Healthy  exposed as nvidia.com/NVIDIA_L40S-4Q
                              model: AD102GL [L40S] (NVIDIA Corporation), SR-IOV VF of 0000:41:00.0
                              vGPU type: 1147 'NVIDIA L40S-4Q'
                """, """
                0000:41:00.6  10de:26b9      030200  nvidia  33     1     -        skipped: SR-IOV vGPU VF without a vGPU (nvidia/current_vgpu_type is 0)
                              model: AD102GL [L40S] (NVIDIA Corporation), SR-IOV VF of 0000:41:00.0
                              vGPU type: none
                """);
    }

    @Test
    void textListsConfigurationProblemsWhenAConfigurationIsGiven() {
        HostSnapshot s = InventoryHosts.workstation().build();
        PolicyResult result = PolicyEngine.evaluate(s, Optional.of(new PermittedHostDevices(List.of(
                new PciHostDevice("10DE:1F08", "nvidia.com/RTX2060", true),
                new PciHostDevice("nonsense", "nvidia.com/X", true)), List.of())), IDS);
        String text = InventoryText.format(InventoryReport.of(s, result, IDS, Optional.of("/etc/vfio-dp/config.yaml"),
                List.of("/etc/vfio-dp/config.yaml line 3: unknown field permittedHostDevices.pciHostDevices[0].foo ignored")));
        assertThat(text).startsWith("pci.ids: test pci.ids\nconfiguration: /etc/vfio-dp/config.yaml\n");
        assertThat(text).endsWith("""
                scan problems:
                  bus/pci/devices/0000:06:00.0/vendor: not hex: 'zz'
                configuration problems:
                  warning: /etc/vfio-dp/config.yaml line 3: unknown field permittedHostDevices.pciHostDevices[0].foo ignored
                  error: pciHostDevices[1] (pciVendorSelector 'nonsense', resourceName 'nvidia.com/X') skipped: pciVendorSelector must be VVVV:DDDD, the vendor and device id in hex (e.g. 10DE:1EB8)
                """);
    }

    @Test
    void jsonKeysComeInAFixedOrderAndAreAlwaysPresent() throws Exception {
        JsonNode root = new ObjectMapper().readTree(InventoryJson.format(defaultReport(InventoryHosts.t4Vgpu().build())));
        assertThat(names(root)).containsExactly("schema", "pciIds", "pciIdsVersion", "pciIdsChosen", "configuration", "dra", "devices",
                "resources", "scanProblems", "configProblems");
        for (JsonNode device : root.get("devices")) {
            assertThat(names(device)).containsExactly("id", "type", "vendorDevice", "vendorName", "model", "class", "driver", "iommuGroup",
                    "companions", "numaNode", "parent", "deviceType", "health", "healthReason", "decision");
            assertThat(names(device.get("decision"))).containsExactly("outcome", "resource", "via", "draDevice", "reason", "companionOf", "notes");
        }
        assertThat(names(root.get("resources").get(0))).containsExactly("name", "kind", "envVar", "devices", "healthy", "via");
    }

    @Test
    void jsonCarriesTheSameFactsAsTheText() throws Exception {
        JsonNode root = new ObjectMapper().readTree(InventoryJson.format(defaultReport(InventoryHosts.t4Vgpu().build())));
        assertThat(root.get("schema").asText()).isEqualTo("vfio-device-plugin/inventory/v1");
        List<String> ids = new ArrayList<>();
        root.get("devices").forEach(d -> ids.add(d.get("id").asText()));
        assertThat(ids).containsExactly(
                "0000:3b:00.0", "1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d");
        JsonNode unhealthy = root.get("devices").get(2);
        assertThat(unhealthy.get("type").asText()).isEqualTo("mdev");
        assertThat(unhealthy.get("parent").asText()).isEqualTo("0000:3b:00.0");
        assertThat(unhealthy.get("deviceType").get("id").asText()).isEqualTo("nvidia-222");
        assertThat(unhealthy.get("deviceType").get("name").asText()).isEqualTo("GRID T4-1B");
        assertThat(unhealthy.get("health").asText()).isEqualTo("Unhealthy");
        assertThat(unhealthy.get("healthReason").asText()).isEqualTo("IOMMU group 102: /dev/vfio/102 missing");
        assertThat(unhealthy.get("decision").get("resource").asText()).isEqualTo("nvidia.com/GRID_T4-1B");
        JsonNode resource = root.get("resources").get(0);
        assertThat(resource.get("envVar").asText()).isEqualTo("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1B");
        assertThat(resource.get("healthy").asInt()).isEqualTo(1);
    }

    @Test
    void jsonIsTheSameForTheSameHost() {
        assertThat(InventoryJson.format(defaultReport(InventoryHosts.workstation().build())))
                .isEqualTo(InventoryJson.format(defaultReport(InventoryHosts.workstation().build())));
    }

    @Test
    void jsonListsProblemsWithSeverity() throws Exception {
        HostSnapshot s = InventoryHosts.workstation().build();
        PolicyResult result = PolicyEngine.evaluate(s, Optional.of(new PermittedHostDevices(List.of(
                new PciHostDevice("10DE:1F08", "bad name", true)), List.of())), IDS);
        JsonNode root = new ObjectMapper().readTree(InventoryJson.format(
                InventoryReport.of(s, result, IDS, Optional.of("c.yaml"), List.of())));
        assertThat(root.get("configuration").asText()).isEqualTo("c.yaml");
        assertThat(root.get("configProblems").get(0).get("severity").asText()).isEqualTo("error");
        assertThat(root.get("configProblems").get(0).get("message").asText()).isEqualTo(result.problems().get(0).message());
        assertThat(result.problems().get(0).severity()).isEqualTo(PolicyProblem.Severity.ERROR);
        assertThat(root.get("scanProblems").get(0).get("path").asText()).isEqualTo("bus/pci/devices/0000:06:00.0/vendor");
    }

    static List<String> names(JsonNode node) {
        return new ArrayList<>(node.propertyNames());
    }
}
