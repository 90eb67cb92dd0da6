package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class InventoryCommandTest {

    /** The bundled copy (Debian's 2026.10.24), given explicitly so a host's own pci.ids cannot change the names. */
    static final Path PCI_IDS = project().resolve("src/main/resources/pci.ids.gz");
    static final String PCI_IDS_PLACEHOLDER = "<pci.ids>";
    static final String FIXTURES_PLACEHOLDER = "<fixtures>";

    record Run(int exitCode, String out, String err) {}

    static Path project() {
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir) : Path.of("").toAbsolutePath();
    }

    static Run inventory(String node, String... extra) {
        List<String> args = new ArrayList<>(List.of("inventory",
                "--sysfs-root", SysfsFixtures.sys(node).toString(),
                "--dev-root", SysfsFixtures.dev(node).toString(),
                "--pci-ids", PCI_IDS.toString()));
        args.addAll(List.of(extra));
        return run(args.toArray(String[]::new));
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(java.util.Map.of());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        // golden files must not depend on where the checkout lives
        String printed = out.toString().replace(PCI_IDS.toString(), PCI_IDS_PLACEHOLDER)
                .replace(SysfsFixtures.committedRoot().toString(), FIXTURES_PLACEHOLDER);
        return new Run(code, printed, err.toString());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"workstation", "t4-numa", "hgx-8gpu", "t4-vgpu", "l40s-sriov", "hostile"})
    void tablePerFixtureNode(String node) throws IOException {
        Run run = inventory(node);
        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
        GoldenFile.assertMatches(node + ".txt", run.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"workstation", "t4-numa", "hgx-8gpu", "t4-vgpu", "l40s-sriov", "hostile"})
    void jsonPerFixtureNode(String node) throws IOException {
        Run run = inventory(node, "--json");
        assertThat(run.exitCode()).isZero();
        GoldenFile.assertMatches(node + ".json", run.out());
    }

    @Test
    void tableEndsWithTheVgpuLayoutWhenTheConfigDeclaresOne(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("layout.yaml"), """
                permittedHostDevices: {}
                mediatedDevicesConfiguration:
                  mediatedDeviceTypes: [GRID_T4-1Q]
                  nodeMediatedDeviceTypes:
                  - nodeSelector: {gpu-profile: big}
                    mediatedDeviceTypes: [GRID_T4-4Q]
                """);

        Run plain = inventory("t4-vgpu", "--config", config.toString());
        Run labelled = inventory("t4-vgpu", "--config", config.toString(), "--node-label", "gpu-profile=big");

        assertThat(plain.exitCode()).isZero();
        assertThat(plain.out()).endsWith("""

                vGPU layout: desired GRID_T4-1Q from mediatedDeviceTypes
                GPU            KIND   DESIRED                  ACTUAL
                0000:3b:00.0   mdev   GRID T4-1Q               3 x GRID T4-1Q
                0000:d9:00.0   mdev   GRID T4-1Q               2 x GRID T4-2Q
                """);
        assertThat(labelled.out()).contains("vGPU layout: desired GRID_T4-4Q from nodeMediatedDeviceTypes");
    }

    @Test
    void jsonIsByteForByteStableAcrossRuns() {
        assertThat(inventory("t4-vgpu", "--json").out()).isEqualTo(inventory("t4-vgpu", "--json").out());
        assertThat(inventory("hostile", "--json").out()).isEqualTo(inventory("hostile", "--json").out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"workstation", "t4-numa", "hgx-8gpu", "t4-vgpu", "hostile"})
    void suggestedConfigFedBackExposesTheSameResources(String node, @TempDir Path dir) throws IOException {
        Path config = dir.resolve("suggested.yaml");
        Files.writeString(config, inventory(node, "--suggest-config").out());
        JsonNode defaults = json(inventory(node, "--json"));
        JsonNode configured = json(inventory(node, "--json", "--config", config.toString()));
        assertThat(configured.get("resources")).isEqualTo(defaults.get("resources"));
        assertThat(configured.get("configProblems")).isEmpty();
        assertThat(decisions(configured)).isEqualTo(decisions(defaults));
    }

    @Test
    void suggestedConfigCannotSplitSriovVfsOfOneModelByVgpuType(@TempDir Path dir) throws IOException {
        String yaml = inventory("l40s-sriov", "--suggest-config").out();
        assertThat(yaml).contains("""
                    # default mode splits these over [nvidia.com/NVIDIA_L40S-1Q, nvidia.com/NVIDIA_L40S-4Q]; a pciVendorSelector cannot tell them apart, so all go to the first
                    - pciVendorSelector: "10DE:26B9"
                      resourceName: "nvidia.com/NVIDIA_L40S-1Q"
                """);
        Path config = dir.resolve("suggested.yaml");
        Files.writeString(config, yaml);
        JsonNode configured = json(inventory("l40s-sriov", "--json", "--config", config.toString()));
        assertThat(configured.get("resources").get(0).get("name").asText()).isEqualTo("nvidia.com/NVIDIA_L40S-1Q");
        assertThat(configured.get("resources").get(0).get("devices").toString())
                .isEqualTo("[\"0000:41:00.4\",\"0000:41:00.5\",\"0000:c1:00.4\"]");
    }

    @Test
    void suggestedConfigPerFixtureNode() throws IOException {
        GoldenFile.assertMatches("t4-vgpu.suggested.yaml", inventory("t4-vgpu", "--suggest-config").out());
        GoldenFile.assertMatches("t4-numa.suggested.yaml", inventory("t4-numa", "--suggest-config").out());
    }

    @Test
    void deviceClassesOfTheResourcesRoutedToDraPerFixtureNode() throws IOException {
        GoldenFile.assertMatches("t4-vgpu.device-classes.yaml", inventory("t4-vgpu", "--dra-resources=all", "--device-classes").out());
        GoldenFile.assertMatches("l40s-sriov.device-classes.yaml", inventory("l40s-sriov", "--dra-resources=nvidia.com/NVIDIA_L40S-4Q",
                "--device-classes").out());
    }

    @Test
    void deviceClassesWithNothingRoutedToDraSayWhy() {
        Run run = inventory("t4-numa", "--device-classes");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).doesNotContain("kind: DeviceClass").endsWith("# No resource of this node goes through DRA with --dra-resources=none.\n");
    }

    @Test
    void deviceClassesSelectTheNamedDriver() {
        Run run = inventory("t4-numa", "--dra-resources=all", "--dra-driver-name=gpu.example.com", "--device-classes");

        assertThat(run.out()).contains("  name: tu104gl-tesla-t4.f7ec.nvidia.com.gpu.example.com\n",
                "expression: \"device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].resourceName == 'nvidia.com/TU104GL_TESLA_T4'\"");
    }

    @Test
    void deviceClassesForADriverNameThatIsNoneAreAnError() {
        Run run = inventory("t4-numa", "--dra-resources=all", "--dra-driver-name=Not_A_Name", "--device-classes");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("inventory: DRA driver name 'Not_A_Name' is not a lower-case DNS subdomain of at most 63 characters\n");
    }

    /** Without --pci-ids the newer of the system file and the bundled copy is used, and both outputs say which and why. */
    @Test
    void withoutAnExplicitPciIdsTheTextAndTheJsonSayWhichCopyAndWhy() throws IOException {
        io.vfiodp.host.pciids.PciIds.Origin chosen = io.vfiodp.host.pciids.PciIds.load(java.util.Optional.empty()).origin();
        Run text = run("inventory", "--sysfs-root", SysfsFixtures.sys("workstation").toString(),
                "--dev-root", SysfsFixtures.dev("workstation").toString());
        Run json = run("inventory", "--sysfs-root", SysfsFixtures.sys("workstation").toString(),
                "--dev-root", SysfsFixtures.dev("workstation").toString(), "--json");

        assertThat(chosen.reason()).isPresent();
        assertThat(text.out()).startsWith("pci.ids: " + chosen.describe() + "\n");
        JsonNode root = json(json);
        assertThat(root.get("pciIds").asText()).isEqualTo(chosen.source());
        assertThat(root.get("pciIdsVersion").asText()).isEqualTo(chosen.version().orElseThrow());
        assertThat(root.get("pciIdsChosen").asText()).isEqualTo(chosen.reason().orElseThrow());
    }

    @Test
    void invalidConfigEntriesAreReportedWhileValidOnesWork(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      resourceName: nvidia.com/T4
                      externalResourceProvider: true
                    - pciVendorSelector: "10DE-20B5"
                      resourceName: nvidia.com/A100
                      externalResourceProvider: true
                    - pciVendorSelector: "8086:0A54"
                      resourceName: intel.com/nvme_
                      externalResourceProvider: true
                    - pciVendorSelector: "8086:0a54"
                      resourceName: intel.com/P4510
                      externalResourceProvider: true
                      numaAware: true
                """);
        Run run = inventory("t4-numa", "--config", config.toString());
        assertThat(run.exitCode()).isZero();
        GoldenFile.assertMatches("t4-numa.config.txt", run.out().replace(config.toString(), "<config.yaml>"));
    }

    @Test
    void malformedConfigFileIsOneErrorAndExitStatus1(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "permittedHostDevices:\n  pciHostDevices:\n    - externalResourceProvider: sometimes\n");
        Run run = inventory("workstation", "--config", config.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("inventory: " + config + " line 3, column 33, field"
                + " permittedHostDevices.pciHostDevices[0].externalResourceProvider: 'sometimes' is not true or false\n");
    }

    @Test
    void missingConfigFileIsAnErrorNamingIt(@TempDir Path dir) {
        Path config = dir.resolve("absent.yaml");
        Run run = inventory("workstation", "--config", config.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("inventory: config file " + config + ": no such file\n");
    }

    @Test
    void missingPciIdsFileIsAnErrorNamingIt(@TempDir Path dir) {
        Path ids = dir.resolve("pci.ids");
        Run run = run("inventory", "--sysfs-root", SysfsFixtures.sys("workstation").toString(),
                "--dev-root", SysfsFixtures.dev("workstation").toString(), "--pci-ids", ids.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("inventory: cannot read pci.ids database " + ids + ": no such file\n");
    }

    @Test
    void jsonAndSuggestConfigExcludeEachOther() {
        Run run = inventory("workstation", "--json", "--suggest-config");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("Error: --json, --suggest-config are mutually exclusive");
    }

    static JsonNode json(Run run) throws IOException {
        assertThat(run.exitCode()).as(run.err()).isZero();
        return new ObjectMapper().readTree(run.out());
    }

    static List<String> decisions(JsonNode root) {
        List<String> out = new ArrayList<>();
        for (JsonNode d : root.get("devices")) {
            JsonNode decision = d.get("decision");
            if (decision.get("outcome").asText().equals("skipped")) continue;
            out.add(d.get("id").asText() + " " + decision.get("outcome").asText() + " " + decision.get("resource").asText()
                    + " " + decision.get("companionOf").asText());
        }
        return out;
    }
}
