package io.vfiodp.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code serve} of the image on a real Linux kernel, against the kubelet simulator inside the
 * guest ({@code io.vfiodp.kernel.guest.ServeDriver}): registration, ListAndWatch,
 * GetPreferredAllocation and Allocate; then the proof that Allocate is sufficient and minimal: a
 * process that sees only the device nodes Allocate returned (a private mount namespace with a
 * fresh /dev/vfio holding just those nodes, as a container runtime makes it) gets the device fd
 * of the allocated address from VFIO and cannot open any other group.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(KernelTestBed.class)
class RealKernelServeIT {

    private static final String EDU = "qemu.test/edu";
    private static final String DISPLAY = "qemu.test/display";

    private Guest guest;
    private Map<String, GuestHosts.SysfsFunction> kernel;
    private JsonNode served;

    @BeforeAll
    void bootAndServe(Guest shared) throws Exception {
        guest = shared;
        GuestHosts.writeConfig(guest);
        GuestHosts.bindServedToVfio(guest);
        kernel = GuestHosts.sysfs(guest);
        served = new ObjectMapper().readTree(guest.ok(guest.java("io.vfiodp.kernel.guest.ServeDriver",
                guest.image().imageDir().resolve("bin/vfio-device-plugin").toString(), GuestHosts.CONFIG_PATH, "/run/dp/plugins",
                EDU + "," + DISPLAY, EDU + "=" + Guest.EDU_BEHIND_BRIDGE_2) + " 2>/tmp/serve-driver.err"));
        assertThat(served.has("error")).as("the driver's run: %s", served).isFalse();
    }

    @Test
    void everyResourceRegistersWithPreferredAllocationAndStopsCleanly() {
        List<String> registered = new ArrayList<>();
        for (JsonNode r : served.get("registrations")) {
            registered.add(r.get("resource").asString() + " " + r.get("endpoint").asString() + " " + r.get("preferredAllocation").asBoolean());
        }
        assertThat(registered).containsExactlyInAnyOrder(
                EDU + " vfio-dp-qemu.test_edu.sock true", DISPLAY + " vfio-dp-qemu.test_display.sock true");
        assertThat(served.get("serveExit").asInt()).as("serve's exit after SIGTERM; its log:\n%s", served.get("serveLog").asString())
                .isZero();
    }

    @Test
    void listAndWatchListsOneDevicePerIommuGroup() {
        assertThat(devices(EDU)).isEqualTo(Map.of(Guest.EDU, "Healthy", Guest.EDU_BEHIND_BRIDGE_1, "Healthy"));
        assertThat(devices(DISPLAY)).isEqualTo(Map.of(Guest.BOCHS, "Healthy"));
    }

    @Test
    void getPreferredAllocationPicksAListedDevice() {
        JsonNode preferred = served.get("resources").get(EDU).get("preferred");
        assertThat(preferred).hasSize(1);
        assertThat(devices(EDU)).containsKey(preferred.get(0).asString());
    }

    @Test
    void allocateNamesOneAddressPerDeviceAndHandsOutItsGroupNodeOnly() {
        JsonNode shared = served.get("resources").get(EDU).get("allocations").get(Guest.EDU_BEHIND_BRIDGE_1);
        assertThat(envs(shared)).isEqualTo(Map.of("PCI_RESOURCE_QEMU_TEST_EDU", Guest.EDU_BEHIND_BRIDGE_1,
                "VFIO_DP_COMPANIONS_QEMU_TEST_EDU", Guest.EDU_BEHIND_BRIDGE_1 + "=" + Guest.EDU_BEHIND_BRIDGE_2 + "+" + Guest.RNG_BEHIND_BRIDGE));
        assertThat(nodes(shared)).containsExactly("/dev/vfio/vfio", "/dev/vfio/" + kernel.get(Guest.BRIDGE).group());

        JsonNode alone = served.get("resources").get(EDU).get("allocations").get(Guest.EDU);
        assertThat(envs(alone)).isEqualTo(Map.of("PCI_RESOURCE_QEMU_TEST_EDU", Guest.EDU));
        assertThat(nodes(alone)).containsExactly("/dev/vfio/vfio", "/dev/vfio/" + kernel.get(Guest.EDU).group());
        for (JsonNode d : alone.get("devices")) {
            assertThat(d.get("containerPath").asString()).isEqualTo(d.get("hostPath").asString());
            assertThat(d.get("permissions").asString()).isEqualTo("mrw");
        }
    }

    @Test
    void aGroupMateIsNoDeviceTheKubeletCanAllocate() {
        assertThat(served.get("refused").get(Guest.EDU_BEHIND_BRIDGE_2).asString())
                .isEqualTo("INVALID_ARGUMENT: Allocate qemu.test/edu: device " + Guest.EDU_BEHIND_BRIDGE_2 + " is unknown to this node");
    }

    @Test
    void theNodesAllocateReturnsAreEnoughForVfioAndNothingElseIsReachable() throws Exception {
        JsonNode shared = served.get("resources").get(EDU).get("allocations").get(Guest.EDU_BEHIND_BRIDGE_1);
        String group = kernel.get(Guest.BRIDGE).group();
        List<String> others = otherGroups(group);

        String out = inNamespaceWith(nodes(shared), guest.java("io.vfiodp.kernel.guest.VfioProbe", "device", group,
                Guest.EDU_BEHIND_BRIDGE_1, Guest.EDU_BEHIND_BRIDGE_2, "--", String.join(" ", others)));

        assertThat(out).contains("nodes: " + group + " vfio\n",
                "container: API version 0\n",
                "group " + group + ": viable\n",
                "group " + group + ": container set\n",
                "container: IOMMU type type1v2 set\n",
                "device " + Guest.EDU_BEHIND_BRIDGE_1 + ": fd pci regions 9 irqs 5\n",
                "device " + Guest.EDU_BEHIND_BRIDGE_2 + ": fd pci regions 9 irqs 5\n");
        for (String other : others) assertThat(out).contains("other group " + other + ": errno 2 (No such file or directory)\n");
    }

    @Test
    void outsideTheNamespaceTheOtherGroupsWouldOpen() throws Exception {
        String group = kernel.get(Guest.EDU).group();
        String out = guest.ok(guest.java("io.vfiodp.kernel.guest.VfioProbe", "device", group, Guest.EDU, "--",
                kernel.get(Guest.BRIDGE).group()));

        assertThat(out).contains("device " + Guest.EDU + ": fd pci regions 9 irqs 5\n",
                "other group " + kernel.get(Guest.BRIDGE).group() + ": opened\n");
    }

    /**
     * Runs {@code command} in a private mount namespace whose /dev/vfio is a fresh tmpfs holding
     * only {@code nodes}, made with the real nodes' numbers, as a container runtime makes them.
     */
    private String inNamespaceWith(List<String> nodes, String command) throws Exception {
        StringBuilder script = new StringBuilder("unshare -m sh -e <<'EOF'\nmount -t tmpfs -o mode=755 devices /dev/vfio\n");
        for (String n : nodes) {
            String[] hex = guest.ok("stat -c '%t %T' " + n).strip().split(" ");
            script.append("mknod -m 666 ").append(n).append(" c ").append(Integer.parseInt(hex[0], 16)).append(' ')
                    .append(Integer.parseInt(hex[1], 16)).append('\n');
        }
        script.append("echo \"nodes: $(ls /dev/vfio | tr '\\n' ' ' | sed 's/ $//')\"\n").append(command).append("\nEOF\n");
        return guest.ok(script.toString());
    }

    /** Every IOMMU group with a node in the guest's real /dev/vfio, but {@code group}. */
    private List<String> otherGroups(String group) throws Exception {
        List<String> others = new ArrayList<>();
        for (String name : guest.ok("ls /dev/vfio").strip().split("\\s+")) {
            if (!name.equals("vfio") && !name.equals(group)) others.add(name);
        }
        assertThat(others).as("other groups on vfio-pci").isNotEmpty();
        return others;
    }

    private Map<String, String> devices(String resource) {
        Map<String, String> devices = new TreeMap<>();
        served.get("resources").get(resource).get("devices").properties().forEach(e -> devices.put(e.getKey(), e.getValue().asString()));
        return devices;
    }

    private static Map<String, String> envs(JsonNode allocation) {
        Map<String, String> envs = new TreeMap<>();
        allocation.get("envs").properties().forEach(e -> envs.put(e.getKey(), e.getValue().asString()));
        return envs;
    }

    private static List<String> nodes(JsonNode allocation) {
        List<String> nodes = new ArrayList<>();
        allocation.get("devices").forEach(d -> nodes.add(d.get("hostPath").asString()));
        return nodes;
    }
}
