package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
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
                "--pci-ids", InventoryCommandTest.PCI_IDS.toString(),
                "--device-plugin-dir", NO_KUBELET.toString(),
                "--dra-registry-dir", "/nonexistent/plugins_registry",
                "--cdi-dir", "/nonexistent/cdi",
                "--kubevirt", "off"));
        args.addAll(List.of(extra));
        return InventoryCommandTest.run(args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"doctor-ready", "doctor-iommu-off", "doctor-amd-shared", "doctor-odd"})
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
