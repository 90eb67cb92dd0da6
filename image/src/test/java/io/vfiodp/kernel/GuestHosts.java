package io.vfiodp.kernel;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** What the real-kernel tests ask of a booted guest beyond single commands: its sysfs as the kernel shows it, the plugin's inventory. */
final class GuestHosts {

    /** The plugin configuration the guest's tests use: every QEMU device kind a resource of its own. */
    static final String CONFIG = """
            permittedHostDevices:
              pciHostDevices:
                - pciVendorSelector: "1234:11e8"
                  resourceName: qemu.test/edu
                  externalResourceProvider: true
                - pciVendorSelector: "1234:1111"
                  resourceName: qemu.test/display
                  externalResourceProvider: true
                - pciVendorSelector: "1af4:1044"
                  resourceName: qemu.test/rng
                  externalResourceProvider: true
            """;
    static final String CONFIG_PATH = "/tmp/vfio-dp-config.yaml";

    /** One PCI function as the guest's kernel shows it: IOMMU group and driver from their links. */
    record SysfsFunction(String group, String driver) {}

    private GuestHosts() {}

    static void writeConfig(Guest guest) throws IOException, InterruptedException {
        guest.ok("cat > " + CONFIG_PATH + " <<'EOF'\n" + CONFIG + "EOF\n");
    }

    /** The devices serve's tests start from on vfio-pci: every emulated device but the boot VGA. */
    static void bindServedToVfio(Guest guest) throws IOException, InterruptedException {
        for (String a : List.of(Guest.EDU, Guest.BOCHS, Guest.EDU_BEHIND_BRIDGE_1, Guest.EDU_BEHIND_BRIDGE_2, Guest.RNG_BEHIND_BRIDGE)) {
            guest.bind(a, "vfio-pci");
        }
    }

    /** Every PCI function by address, read with the shell, not with the plugin. */
    static Map<String, SysfsFunction> sysfs(Guest guest) throws IOException, InterruptedException {
        String out = guest.ok("""
                for d in /sys/bus/pci/devices/*; do
                  g=$(readlink $d/iommu_group); r=$(readlink $d/driver)
                  echo "$(basename $d) ${g##*/} ${r##*/}"
                done
                """);
        Map<String, SysfsFunction> functions = new TreeMap<>();
        for (String line : out.strip().split("\n")) {
            String[] f = line.trim().split(" ", -1);
            functions.put(f[0], new SysfsFunction(f[1], f.length > 2 ? f[2] : ""));
        }
        return functions;
    }

    /** {@code inventory --json} of the image's launcher on the guest's real /sys and /dev, with the tests' configuration. */
    static JsonNode inventory(Guest guest) throws IOException, InterruptedException {
        return new ObjectMapper().readTree(guest.ok(guest.plugin("inventory", "--json", "--config", CONFIG_PATH) + " 2>/dev/null"));
    }

    /** The inventory's row for {@code address}. */
    static JsonNode device(JsonNode inventory, String address) {
        for (JsonNode d : inventory.get("devices")) {
            if (d.get("id").asString().equals(address)) return d;
        }
        throw new AssertionError("no inventory row for " + address + " in " + inventory);
    }

    /** VFIO_GROUP_GET_STATUS of each group, as the kernel answers it: group → "viable" or "not viable". */
    static Map<String, String> viability(Guest guest, Iterable<String> groups) throws IOException, InterruptedException {
        StringBuilder args = new StringBuilder();
        for (String g : groups) args.append(' ').append(g);
        String out = guest.ok(guest.java("io.vfiodp.kernel.guest.VfioProbe", "status" + args));
        Map<String, String> answer = new TreeMap<>();
        for (String line : out.strip().split("\n")) {
            if (!line.startsWith("group ")) continue;
            answer.put(line.substring(6, line.indexOf(':')), line.substring(line.indexOf(':') + 2));
        }
        return answer;
    }
}
