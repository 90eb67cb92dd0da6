package io.vfiodp.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code doctor} of the image on a real Linux kernel (see {@link Guest} for the machine), booted
 * with the IOMMU on and with it off, and with a group made not viable: what it says of the IOMMU,
 * the command line, interrupt remapping, the VFIO modules and container, and the devices is what
 * the kernel shows; the commands it prints for a group not viable make the group viable, as
 * VFIO_GROUP_GET_STATUS answers it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(KernelTestBed.class)
class RealKernelDoctorIT {

    /** A device-plugin directory without a kubelet: doctor warns about kubelet.sock on every boot. */
    private static final String PLUGINS = "/run/kubelet/device-plugins";

    private GuestImage image;
    private Guest guest;

    /** doctor's exit status and JSON report. */
    private record Doctor(int exit, JsonNode report) {
        JsonNode check(String check) {
            return check(check, null);
        }

        JsonNode check(String check, String subject) {
            for (JsonNode c : report.get("checks")) {
                if (c.get("check").asString().equals(check) && (subject == null || subject.equals(c.get("subject").asString()))) return c;
            }
            throw new AssertionError("no " + check + " " + subject + " in " + report);
        }

        String outcome(String check) {
            return check(check).get("outcome").asString() + " " + check(check).get("detail").asString();
        }

        String outcome(String check, String subject) {
            return check(check, subject).get("outcome").asString() + " " + check(check, subject).get("detail").asString();
        }
    }

    @BeforeAll
    void boot(GuestImage image, Guest shared) throws Exception {
        this.image = image;
        guest = shared;
        prepare(guest);
    }

    private static void prepare(Guest g) throws Exception {
        GuestHosts.writeConfig(g);
        g.ok("mkdir -p " + PLUGINS);
    }

    private static Doctor doctor(Guest g) throws Exception {
        GuestShell.Result r = g.run(g.plugin("doctor", "--json", "--config", GuestHosts.CONFIG_PATH, "--device-plugin-dir", PLUGINS,
                "--kubevirt", "off") + " 2>/dev/null");
        return new Doctor(r.status(), new ObjectMapper().readTree(r.output()));
    }

    @Test
    void withTheIommuOnAndTheDevicesOnVfioPciTheNodeIsReadyWithWarningsOnlyAboutTheKubeletAndTheConsole() throws Exception {
        GuestHosts.bindServedToVfio(guest);
        guest.bind(Guest.RNG, "vfio-pci");
        Doctor d = doctor(guest);

        assertThat(d.outcome("iommu")).startsWith("ok on: ").endsWith(" IOMMU groups, Intel VT-d units dmar0");
        assertThat(d.outcome("iommu.cmdline")).isEqualTo("ok intel_iommu=on (iommu=pt is optional: without it the host's own devices' DMA is"
                + " translated too)");
        assertThat(d.outcome("iommu.interrupt-remapping")).startsWith("ok on: interrupts go through IR-");
        assertThat(d.outcome("vfio.modules")).isEqualTo("ok vfio, vfio_pci and vfio_iommu_type1 loaded; the vfio-pci driver is registered");
        assertThat(d.outcome("vfio.container")).isEqualTo("ok VFIO available: API version 0, type1 IOMMU yes, type1v2 IOMMU yes");
        assertThat(d.outcome("vfio.unsafe-interrupts")).isEqualTo("ok not allowed: VFIO hands out only devices whose interrupts are isolated");
        assertThat(d.outcome("device.driver", Guest.EDU)).isEqualTo("ok on vfio-pci");
        assertThat(d.outcome("device.group", Guest.EDU)).matches("ok IOMMU group \\d+ is viable \\(the device is alone in it\\)");
        assertThat(d.outcome("device.driver", Guest.VGA)).isEqualTo("warn the boot VGA device: the host's console runs on it");
        assertThat(d.outcome("passthrough")).isEqualTo("ok 4 devices can be passed through: qemu.test/display (1), qemu.test/edu (2),"
                + " qemu.test/rng (1)");
        assertThat(d.outcome("kubelet.device-plugins")).startsWith("warn " + PLUGINS + "/kubelet.sock does not exist");
        List<String> warned = new ArrayList<>();
        for (JsonNode c : d.report().get("checks")) {
            if (!c.get("outcome").asString().equals("ok")) warned.add(c.get("check").asString() + " " + c.get("subject").asString());
        }
        // the kernel lists a reset method for the first function it found behind the PCIe-to-PCI bridge (a bus reset, while it
        // was alone on the bus) and none for the next; the boot VGA device on the root complex has none either
        assertThat(warned).as("%s", d.report()).containsExactlyInAnyOrder("device.driver " + Guest.VGA, "device.reset " + Guest.VGA,
                "device.companions " + Guest.EDU_BEHIND_BRIDGE_1, "device.companions " + Guest.EDU_BEHIND_BRIDGE_2,
                "device.reset " + Guest.EDU_BEHIND_BRIDGE_2, "kubelet.device-plugins ");
        assertThat(d.exit()).isEqualTo(1);
    }

    /**
     * The guest is a QEMU virtual machine with a virtual Intel IOMMU, and Debian installs the
     * kernel's configuration as /boot/config-<release> (the initramfs carries it; the cloud kernel
     * has no /proc/config.gz): doctor says what the real file says of VFIO, and, since the modules
     * are loaded, has nothing to fix there.
     */
    @Test
    void doctorReadsTheMachineAndTheKernelsOwnConfiguration() throws Exception {
        String release = guest.ok("uname -r").strip();
        Path config = image.vmlinuz().resolveSibling("config-" + release);
        Map<String, String> set = new TreeMap<>();
        for (String line : Files.readAllLines(config)) {
            int eq = line.indexOf('=');
            if (line.startsWith("CONFIG_") && eq > 0) set.put(line.substring(0, eq), line.substring(eq + 1));
        }
        Map<String, List<String>> byWord = new LinkedHashMap<>();
        for (String piece : List.of("vfio", "vfio_pci", "vfio_iommu_type1", "iommufd")) {
            String word = switch (set.getOrDefault("CONFIG_" + piece.toUpperCase(Locale.ROOT), "")) {
                case "y" -> "built in";
                case "m" -> "a module";
                default -> "absent";
            };
            byWord.computeIfAbsent(word, w -> new ArrayList<>()).add(piece);
        }
        List<String> groups = new ArrayList<>();
        byWord.forEach((word, pieces) -> groups.add(joined(pieces) + " " + (word.equals("a module") && pieces.size() > 1 ? "modules" : word)));
        Doctor d = doctor(guest);

        assertThat(set).as("%s", config).containsEntry("CONFIG_MODULES", "y");
        assertThat(d.outcome("host.kernel")).isEqualTo("ok Linux " + release + "; configuration from /boot/config-" + release + ": "
                + String.join(", ", groups) + "; modules can be loaded");
        assertThat(d.outcome("host.machine")).startsWith("ok a virtual machine: ").contains("QEMU");
        assertThat(d.outcome("vfio.modules")).startsWith("ok ");
    }

    private static String joined(List<String> names) {
        return names.size() == 1 ? names.getFirst() : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.getLast();
    }

    @Test
    void aGroupMadeNotViableIsNamedAndTheCommandsDoctorPrintsMakeItViable() throws Exception {
        GuestHosts.bindServedToVfio(guest);
        guest.bind(Guest.RNG_BEHIND_BRIDGE, "virtio-pci");
        String group = GuestHosts.sysfs(guest).get(Guest.EDU_BEHIND_BRIDGE_1).group();
        Doctor before = doctor(guest);
        JsonNode fix = before.check("device.group", Guest.EDU_BEHIND_BRIDGE_1).get("fix");

        assertThat(before.outcome("device.group", Guest.EDU_BEHIND_BRIDGE_1)).isEqualTo("warn IOMMU group " + group + " is not viable: "
                + Guest.RNG_BEHIND_BRIDGE + " (1af4:1005) on virtio-pci");
        assertThat(GuestHosts.viability(guest, List.of(group))).as("VFIO_GROUP_GET_STATUS").isEqualTo(Map.of(group, "not viable"));

        StringBuilder now = new StringBuilder();
        fix.get("now").forEach(line -> now.append(line.asString()).append('\n'));
        guest.ok(now.toString());
        Doctor after = doctor(guest);

        assertThat(after.outcome("device.group", Guest.EDU_BEHIND_BRIDGE_1))
                .isEqualTo("ok IOMMU group " + group + " is viable (4 members, none on a host driver)");
        assertThat(GuestHosts.viability(guest, List.of(group))).isEqualTo(Map.of(group, "viable"));
    }

    @Test
    void withTheIommuOffDoctorSaysSoAndHowToTurnItOnAndTheNodeIsNotReady() throws Exception {
        try (Guest off = Guest.boot(image, "intel_iommu=off")) {
            prepare(off);
            Doctor d = doctor(off);

            assertThat(d.outcome("iommu")).isEqualTo("fail off: the kernel made no IOMMU groups; the firmware describes Intel VT-d (the ACPI DMAR"
                    + " table) but the kernel did not turn it on");
            assertThat(d.outcome("iommu.cmdline")).isEqualTo("fail intel_iommu=off: intel_iommu=off turns the IOMMU off");
            assertThat(d.check("iommu.cmdline").get("fix").get("forGood").toString()).contains("grubby --update-kernel=ALL"
                    + " --remove-args=\\\"intel_iommu=off\\\"");
            assertThat(d.outcome("device.group", Guest.EDU)).isEqualTo("warn no IOMMU group: the IOMMU is off");
            assertThat(d.outcome("passthrough")).startsWith("fail no device can be passed through: ");
            assertThat(d.exit()).isEqualTo(2);
        }
    }
}
