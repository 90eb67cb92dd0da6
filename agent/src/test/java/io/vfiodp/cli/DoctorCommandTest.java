package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code doctor} on the fixture nodes, byte for byte against {@code src/test/resources/doctor}. The
 * fixtures' {@code /dev/vfio/vfio} is a plain file, so the container's ioctls fail on every node,
 * as they would on a host without VFIO; {@code doctor}'s checks themselves are the doctor package's tests.
 */
class DoctorCommandTest {

    private static final Path NO_KUBELET = Path.of("/nonexistent/device-plugins");

    static InventoryCommandTest.Run doctor(String node, String... extra) {
        List<String> args = new ArrayList<>(List.of("doctor",
                "--sysfs-root", SysfsFixtures.sys(node).toString(),
                "--dev-root", SysfsFixtures.dev(node).toString(),
                "--proc-root", SysfsFixtures.committedRoot().resolve(node).resolve("proc").toString(),
                "--boot-root", SysfsFixtures.committedRoot().resolve(node).resolve("boot").toString(),
                "--pci-ids", InventoryCommandTest.PCI_IDS.toString(),
                "--device-plugin-dir", NO_KUBELET.toString(),
                "--dra-registry-dir", "/nonexistent/plugins_registry",
                "--cdi-dir", "/nonexistent/cdi",
                "--kubevirt", "off"));
        args.addAll(List.of(extra));
        return InventoryCommandTest.run(args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("io.vfiodp.host.fixtures.DoctorNodes#NODES")
    void linesPerFixtureNode(String node) throws IOException {
        InventoryCommandTest.Run run = doctor(node);

        assertThat(run.err()).isEmpty();
        GoldenFile.assertMatches(GoldenFile.dir("doctor"), node + ".txt", run.out());
    }

    @Test
    void jsonCarriesTheVerdictTheExitStatusAndEveryCheck() throws IOException {
        InventoryCommandTest.Run run = doctor("doctor-amd-shared", "--json");
        JsonNode json = new ObjectMapper().readTree(run.out());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(json.get("verdict").asString()).isEqualTo("not-ready");
        assertThat(json.get("exitCode").asInt()).isEqualTo(2);
        GoldenFile.assertMatches(GoldenFile.dir("doctor"), "doctor-amd-shared.json", run.out());
    }

    /**
     * The machine of issue 35 (a firecracker VM on AMD without an IOMMU, its kernel without VFIO and
     * without modules) and a bare-metal server whose kernel has neither, its configuration not
     * exposed: the fixes ask for what the machine can do, a hypervisor's vIOMMU and a kernel with
     * VFIO, and never for a firmware setting inside a VM or a modprobe on a kernel that cannot load it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"doctor-vm-firecracker", "doctor-no-vfio"})
    void jsonOfAKernelWithoutVfioGivesTheFixesThatMachineCanTake(String node) throws IOException {
        InventoryCommandTest.Run run = doctor(node, "--json");
        JsonNode json = new ObjectMapper().readTree(run.out());

        assertThat(run.exitCode()).isEqualTo(2);
        GoldenFile.assertMatches(GoldenFile.dir("doctor"), node + ".json", run.out());
        assertThat(check(json, "vfio.modules").get("detail").asString()).startsWith("absent: this kernel cannot pass devices through: ");
        assertThat(check(json, "vfio.modules").get("fix").get("advice").asString()).startsWith("boot a kernel built with CONFIG_VFIO,");
        for (JsonNode c : json.get("checks")) {
            assertThat(c.get("fix").toString()).as("%s", c).doesNotContain("modprobe").doesNotContain("modules-load.d");
        }
        if (node.equals("doctor-vm-firecracker")) {
            assertThat(check(json, "host.machine").get("detail").asString()).startsWith("a virtual machine: the CPU's hypervisor flag");
            assertThat(check(json, "iommu").get("fix").get("advice").asString())
                    .contains("-device intel-iommu,intremap=on,caching-mode=on", "-machine q35,kernel-irqchip=split", "virtio-iommu",
                            "a bare-metal or passthrough-capable instance")
                    .doesNotContain("firmware setup");
            assertThat(check(json, "iommu.interrupt-remapping").get("fix").get("advice").asString()).doesNotContain("firmware setup");
        }
    }

    private static JsonNode check(JsonNode report, String name) {
        for (JsonNode c : report.get("checks")) {
            if (c.get("check").asString().equals(name)) return c;
        }
        throw new AssertionError("no check " + name + " in " + report);
    }

    @Test
    void aFailingCheckExitsTwo() {
        assertThat(doctor("doctor-iommu-off").exitCode()).isEqualTo(2);
    }

    @Test
    void anInvalidCommandLineExitsSixtyFourNotTwo() {
        InventoryCommandTest.Run run = InventoryCommandTest.run("doctor", "--no-such-option");

        assertThat(run.exitCode()).isEqualTo(64);
        assertThat(run.err()).startsWith("Unknown option: '--no-such-option'");
    }

    @Test
    void withDraTheMissingPluginRegistryFails() {
        InventoryCommandTest.Run run = doctor("doctor-ready", "--dra-resources", "all");

        assertThat(run.out()).contains("fail  kubelet.plugins-registry        /nonexistent/plugins_registry does not exist: the DRA driver"
                + " registers there, with --dra-resources\n");
    }
}
