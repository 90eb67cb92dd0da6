package io.vfiodp.kernel;

import static io.vfiodp.kernel.GuestHosts.device;
import static io.vfiodp.kernel.GuestHosts.inventory;
import static io.vfiodp.kernel.GuestHosts.sysfs;
import static io.vfiodp.kernel.GuestHosts.viability;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * The scan, {@code inventory} and the VFIO checks on a real Linux kernel (see {@link Guest} for
 * the machine): IOMMU groups and drivers as the kernel links them, the boot VGA device, VFIO's
 * container ioctls, and group viability as VFIO_GROUP_GET_STATUS answers it, including the group
 * of the functions behind the PCIe-to-PCI bridge, which is offered as one device.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(KernelTestBed.class)
class RealKernelScanIT {

    private Guest guest;

    @BeforeAll
    void boot(Guest shared) throws Exception {
        guest = shared;
        GuestHosts.writeConfig(guest);
    }

    /** Nothing on vfio-pci, the virtio devices on virtio-pci: the machine as it booted. */
    private void bootState() throws Exception {
        for (String a : List.of(Guest.EDU, Guest.BOCHS, Guest.VGA, Guest.EDU_BEHIND_BRIDGE_1, Guest.EDU_BEHIND_BRIDGE_2)) guest.unbind(a);
        guest.bind(Guest.RNG, "virtio-pci");
        guest.bind(Guest.RNG_BEHIND_BRIDGE, "virtio-pci");
    }

    @Test
    void inventoryReadsGroupsAndDriversAsTheKernelLinksThem() throws Exception {
        bootState();
        Map<String, GuestHosts.SysfsFunction> kernel = sysfs(guest);
        JsonNode inventory = inventory(guest);

        List<String> rows = new ArrayList<>();
        for (JsonNode d : inventory.get("devices")) {
            String id = d.get("id").asString();
            rows.add(id);
            GuestHosts.SysfsFunction k = kernel.get(id);
            assertThat(k).as("%s is in the kernel's sysfs", id).isNotNull();
            assertThat(d.get("iommuGroup").asString()).as("IOMMU group of %s", id).isEqualTo(k.group());
            assertThat(d.get("driver").isNull() ? "" : d.get("driver").asString()).as("driver of %s", id).isEqualTo(k.driver());
        }
        assertThat(rows).contains(Guest.VGA, Guest.EDU, Guest.BOCHS, Guest.EDU_BEHIND_BRIDGE_1, Guest.EDU_BEHIND_BRIDGE_2, Guest.RNG);
        String bridgeGroup = kernel.get(Guest.BRIDGE).group();
        assertThat(new TreeSet<>(List.of(kernel.get(Guest.EDU_BEHIND_BRIDGE_1).group(), kernel.get(Guest.EDU_BEHIND_BRIDGE_2).group(),
                kernel.get(Guest.RNG_BEHIND_BRIDGE).group()))).as("one group behind the PCIe-to-PCI bridge").containsExactly(bridgeGroup);
        assertThat(device(inventory, Guest.EDU).get("decision").get("reason").asString())
                .isEqualTo("no driver bound; bind it to vfio-pci to pass it through");
        assertThat(device(inventory, Guest.RNG).get("decision").get("reason").asString())
                .isEqualTo("bound to virtio-pci, not a VFIO driver (bind it to vfio-pci to pass it through)");
        assertThat(inventory.get("vfio").get("available").asBoolean()).as("VFIO container ioctls: %s", inventory.get("vfio")).isTrue();
        assertThat(inventory.get("vfio").get("type1v2Iommu").asBoolean()).isTrue();
        assertThat(inventory.get("resources")).isEmpty();
    }

    @Test
    void boundDevicesAreExposedTheBootVgaIsNotAndASharedGroupIsOneDeviceWhoseViabilityIsTheKernels() throws Exception {
        bootState();
        for (String a : List.of(Guest.EDU, Guest.BOCHS, Guest.VGA, Guest.EDU_BEHIND_BRIDGE_1, Guest.EDU_BEHIND_BRIDGE_2)) {
            guest.bind(a, "vfio-pci");
        }
        Map<String, GuestHosts.SysfsFunction> kernel = sysfs(guest);
        String bridgeGroup = kernel.get(Guest.BRIDGE).group();
        JsonNode inventory = inventory(guest);

        assertThat(device(inventory, Guest.EDU).get("decision").get("resource").asString()).isEqualTo("qemu.test/edu");
        assertThat(device(inventory, Guest.EDU).get("health").asString()).isEqualTo("Healthy");
        JsonNode bochs = device(inventory, Guest.BOCHS);
        assertThat(bochs.get("class").asString()).isEqualTo("038000");
        assertThat(bochs.get("decision").get("resource").asString()).isEqualTo("qemu.test/display");
        assertThat(device(inventory, Guest.VGA).get("decision").get("reason").asString()).isEqualTo("boot VGA: the host console uses it");
        assertThat(guest.ok("cat /sys/bus/pci/devices/" + Guest.VGA + "/boot_vga; ls /sys/bus/pci/devices/" + Guest.BOCHS))
                .startsWith("1\n").doesNotContain("boot_vga");

        JsonNode shared = device(inventory, Guest.EDU_BEHIND_BRIDGE_1);
        assertThat(shared.get("decision").get("resource").asString()).isEqualTo("qemu.test/edu");
        assertThat(shared.get("companions").toString())
                .isEqualTo("[\"" + Guest.EDU_BEHIND_BRIDGE_2 + "\",\"" + Guest.RNG_BEHIND_BRIDGE + "\"]");
        assertThat(shared.get("health").asString()).isEqualTo("Unhealthy");
        assertThat(shared.get("healthReason").asString())
                .isEqualTo("group " + bridgeGroup + " not viable: " + Guest.RNG_BEHIND_BRIDGE + " bound to virtio-pci");
        assertThat(device(inventory, Guest.EDU_BEHIND_BRIDGE_2).get("decision").get("companionOf").asString())
                .isEqualTo(Guest.EDU_BEHIND_BRIDGE_1);
        assertThat(resourceDevices(inventory, "qemu.test/edu")).containsExactly(Guest.EDU, Guest.EDU_BEHIND_BRIDGE_1);

        Set<String> groups = new TreeSet<>(List.of(kernel.get(Guest.EDU).group(), kernel.get(Guest.BOCHS).group(), bridgeGroup));
        assertThat(viability(guest, groups)).as("VFIO_GROUP_GET_STATUS").isEqualTo(Map.of(
                kernel.get(Guest.EDU).group(), "viable", kernel.get(Guest.BOCHS).group(), "viable", bridgeGroup, "not viable"));

        guest.bind(Guest.RNG_BEHIND_BRIDGE, "vfio-pci");
        assertThat(viability(guest, List.of(bridgeGroup))).isEqualTo(Map.of(bridgeGroup, "viable"));
        assertThat(device(inventory(guest), Guest.EDU_BEHIND_BRIDGE_1).get("health").asString()).isEqualTo("Healthy");
    }

    @Test
    void aSwitchToVfioPciAndBackIsSeenByTheNextScan() throws Exception {
        bootState();
        guest.bind(Guest.RNG, "vfio-pci");
        JsonNode onVfio = device(inventory(guest), Guest.RNG);
        guest.bind(Guest.RNG, "virtio-pci");
        JsonNode back = device(inventory(guest), Guest.RNG);

        assertThat(onVfio.get("decision").get("resource").asString()).isEqualTo("qemu.test/rng");
        assertThat(onVfio.get("health").asString()).isEqualTo("Healthy");
        assertThat(back.get("driver").asString()).isEqualTo("virtio-pci");
        assertThat(back.get("decision").get("outcome").asString()).isEqualTo("skipped");
    }

    private static List<String> resourceDevices(JsonNode inventory, String resource) {
        for (JsonNode r : inventory.get("resources")) {
            if (r.get("name").asString().equals(resource)) {
                List<String> ids = new ArrayList<>();
                r.get("devices").forEach(d -> ids.add(d.asString()));
                return ids;
            }
        }
        throw new AssertionError("no resource " + resource + " in " + inventory.get("resources"));
    }
}
