package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.inventory.SuggestedConfig;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.metrics.EntryErrorLabels;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.PolicyResults;
import io.vfiodp.policy.config.ConfigFile;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;

/**
 * Runs every YAML block of docs/permitted-host-devices.md: KubeVirt CR (patches) through the
 * generated model and the converter, configuration files through the policy's parser, VM
 * manifests as YAML; the permitted devices through the policy against the fixture the guide
 * names, asserting the resources the guide promises.
 */
class PermittedHostDevicesGuideTest {

    static final Path GUIDE = Checkout.path("docs/permitted-host-devices.md");
    private static final Pattern EXAMPLE = Pattern.compile(
            "<!-- example: (\\S+)(?: \\(fixture (\\S+)\\))? -->\\n```yaml\\n(.*?)```", Pattern.DOTALL);

    record Example(String id, Optional<String> fixture, String yaml) {}

    private static String guide;
    private static Map<String, Example> examples;
    private static PciIds pciIds;

    @BeforeAll
    static void readGuide() throws Exception {
        guide = Files.readString(GUIDE);
        examples = new LinkedHashMap<>();
        Matcher m = EXAMPLE.matcher(guide);
        while (m.find()) {
            examples.put(m.group(1), new Example(m.group(1), Optional.ofNullable(m.group(2)), m.group(3)));
        }
        pciIds = PciIds.bundled();
    }

    static HostSnapshot scan(String fixture) {
        Path root = Path.of("src/test/resources/sysfs-fixtures", fixture);
        return new SysfsScanner(root.resolve("sys"), root.resolve("dev")).scan();
    }

    private static PolicyResult run(Example e, Optional<PermittedHostDevices> config) {
        return PolicyEngine.evaluate(scan(e.fixture().orElseThrow()), config, pciIds);
    }

    /** The example as a KubeVirt CR; a merge patch ({@code spec:} only) lands on kubevirt/kubevirt. */
    private static KubeVirt cr(Example e) {
        KubeVirt kv = Serialization.unmarshal(e.yaml(), KubeVirt.class);
        if (kv.getMetadata().getName() == null) {
            kv.setMetadata(new ObjectMetaBuilder().withNamespace("kubevirt").withName("kubevirt").build());
        }
        return kv;
    }

    private static PermittedHostDevices fromCr(Example e) {
        return KubeVirtCrConverter.convert(cr(e), Map.of()).permittedHostDevices().orElseThrow();
    }

    private static PermittedHostDevices fromConfigFile(Example e) throws Exception {
        ConfigFile.Loaded loaded = ConfigFile.parse(e.id() + ".yaml", e.yaml());
        assertThat(loaded.warnings()).as("warnings of " + e.id()).isEmpty();
        return loaded.permittedHostDevices().orElseThrow();
    }

    /** resource name → device IDs, as the kubelet would see them. */
    private static Map<String, List<String>> served(PolicyResult r) {
        Map<String, List<String>> out = new TreeMap<>();
        for (DesiredResource d : r.desiredState().resources().values()) {
            out.put(d.name().value(), d.devices().stream().map(ExposedDevice::id).toList());
        }
        return out;
    }

    private static Example example(String id) {
        assertThat(examples).as("the guide has example " + id).containsKey(id);
        return examples.get(id);
    }

    @Test
    void everyYamlBlockIsANamedExampleThisTestRuns() {
        int yamlBlocks = guide.split("```yaml\\n", -1).length - 1;

        assertThat(examples).hasSize(yamlBlocks);
        assertThat(examples.keySet()).containsExactly("cr-t4-passthrough", "cr-hgx", "cr-t4-mdev", "cr-l40s-vgpu",
                "config-nvme", "cr-workstation", "cr-mdev-types", "cr-mistakes", "cr-two-providers", "suggested-workstation",
                "vm-t4-nvme");
    }

    @Test
    void passthroughExampleServesTheFourT4sAndExplainsTheA100() {
        Example e = example("cr-t4-passthrough");
        PolicyResult r = run(e, Optional.of(fromCr(e)));

        assertThat(served(r)).isEqualTo(Map.of("nvidia.com/TU104GL_TESLA_T4",
                List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0")));
        assertThat(r.problems()).isEmpty();
        assertThat(r.functions().get(PciAddress.parse("0000:3b:00.0"))).isInstanceOfSatisfying(Decision.Skipped.class,
                s -> assertThat(s.reason()).contains("nvidia"));
        assertThat(PolicyResults.exposed(r, "0000:b2:00.0").orElseThrow().health().isHealthy()).isFalse();
    }

    @Test
    void hgxExampleServesGpusAndNvswitchesUnderTheirNames() {
        Example e = example("cr-hgx");

        assertThat(served(run(e, Optional.of(fromCr(e))))).isEqualTo(Map.of(
                "nvidia.com/GH100_H100_SXM5_80GB", List.of("0000:18:00.0", "0000:19:00.0", "0000:3a:00.0", "0000:3b:00.0",
                        "0000:9a:00.0", "0000:9b:00.0", "0000:ba:00.0", "0000:bb:00.0"),
                "nvidia.com/GH100_NVSWITCH", List.of("0000:1a:00.0", "0000:3c:00.0", "0000:9c:00.0", "0000:bc:00.0")));
    }

    @Test
    void hgxDefaultNamesAreTheOnesTheGuideQuotes() {
        assertThat(served(PolicyEngine.evaluate(scan("hgx-8gpu"), Optional.empty(), pciIds)).keySet())
                .containsExactly("nvidia.com/GH100_H100_NVSWITCH", "nvidia.com/GH100_H100_SXM5_80GB");
    }

    @Test
    void mdevExampleSelectsWithSpacesAndWithUnderscores() {
        Example e = example("cr-t4-mdev");
        PolicyResult r = run(e, Optional.of(fromCr(e)));

        assertThat(served(r)).isEqualTo(Map.of(
                "nvidia.com/GRID_T4-1Q", List.of("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30",
                        "c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59"),
                "nvidia.com/GRID_T4-2Q", List.of("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64")));
        assertThat(r.desiredState().resources().values()).extracting(DesiredResource::kind).containsOnly(DeviceKind.MDEV);
        assertThat(r.problems()).isEmpty();
    }

    @Test
    void sriovVgpuExampleServesEveryVfCarryingAVgpuUnderOneName() {
        Example e = example("cr-l40s-vgpu");

        assertThat(served(run(e, Optional.of(fromCr(e))))).isEqualTo(Map.of("nvidia.com/NVIDIA_L40S_VGPU",
                List.of("0000:41:00.4", "0000:41:00.5", "0000:c1:00.4")));
    }

    @Test
    void sriovVgpuDefaultNamesSplitByTypeAsTheGuideSays() {
        assertThat(served(PolicyEngine.evaluate(scan("l40s-sriov"), Optional.empty(), pciIds))).isEqualTo(Map.of(
                "nvidia.com/NVIDIA_L40S-4Q", List.of("0000:41:00.4", "0000:41:00.5"),
                "nvidia.com/NVIDIA_L40S-1Q", List.of("0000:c1:00.4")));
    }

    @Test
    void configFileExamplePermitsTheIntelNvmeNextToTheT4s() throws Exception {
        Example e = example("config-nvme");

        assertThat(served(run(e, Optional.of(fromConfigFile(e))))).isEqualTo(Map.of(
                "nvidia.com/TU104GL_TESLA_T4", List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0"),
                "intel.com/NVME_DC_P4510", List.of("0000:5e:00.0")));
    }

    @Test
    void workstationExampleServesTheGpuAloneWithItsCompanions() {
        Example e = example("cr-workstation");
        PolicyResult r = run(e, Optional.of(fromCr(e)));

        assertThat(served(r)).isEqualTo(Map.of("nvidia.com/TU104_GEFORCE_RTX_2080_REV__A", List.of("0000:01:00.0")));
        assertThat(PolicyResults.exposed(r, "0000:01:00.0").orElseThrow().companions()).containsExactly(
                PciAddress.parse("0000:01:00.1"), PciAddress.parse("0000:01:00.2"), PciAddress.parse("0000:01:00.3"));
    }

    @Test
    void mdevTypesExampleGivesPerNodeTypesOrTheGlobalList() {
        KubeVirt kv = cr(example("cr-mdev-types"));

        assertThat(KubeVirtCrConverter.convert(kv, Map.of("nvidia.com/gpu.product", "Tesla-T4")).mdevTypes().types())
                .containsExactly("nvidia-230", "nvidia-231");
        assertThat(KubeVirtCrConverter.convert(kv, Map.of("nvidia.com/gpu.product", "A10")).mdevTypes().types())
                .containsExactly("nvidia-222");
    }

    @Test
    void mistakesExampleSkipsTheBadEntriesAndKeepsTheGoodOne() {
        Example e = example("cr-mistakes");
        PolicyResult r = run(e, Optional.of(fromCr(e)));

        assertThat(served(r)).isEqualTo(Map.of("nvidia.com/TU104GL_TESLA_T4",
                List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0")));
        assertThat(r.problems()).extracting(EntryErrorLabels::of).containsExactly(
                new EntryErrorLabels("malformed_selector", "pciHostDevices[1]"),
                new EntryErrorLabels("missing_domain", "pciHostDevices[2]"),
                new EntryErrorLabels("mixed_kinds", "mediatedDevices[0]"));
    }

    @Test
    void mistakesEventShownInTheGuideIsTheOneThePluginPosts() {
        Example e = example("cr-mistakes");
        PolicyProblem missingDomain = run(e, Optional.of(fromCr(e))).problems().stream()
                .filter(p -> p.message().startsWith("pciHostDevices[2]")).findFirst().orElseThrow();

        assertThat(guide).contains("InvalidPermittedHostDevice  12s  vfio-device-plugin  KubeVirt CR kubevirt/kubevirt: "
                + missingDomain.message() + "\n");
    }

    @Test
    void twoProvidersExampleServesNothingAndReportsTheExternalEntry() {
        Example e = example("cr-two-providers");
        PolicyResult r = run(e, Optional.of(fromCr(e)));

        assertThat(served(r)).isEmpty();
        assertThat(r.problems()).extracting(EntryErrorLabels::of)
                .containsExactly(new EntryErrorLabels("served_by_kubevirt", "pciHostDevices[1]"));
        assertThat(r.functions().get(PciAddress.parse("0000:1a:00.0"))).isInstanceOfSatisfying(Decision.Skipped.class,
                s -> assertThat(s.reason()).endsWith("so KubeVirt's virt-handler serves it"));
    }

    @Test
    void suggestedConfigExampleIsWhatInventoryPrintsForTheWorkstation() throws Exception {
        HostSnapshot workstation = scan("workstation");
        PolicyResult defaults = PolicyEngine.evaluate(workstation, Optional.empty(), pciIds);
        Example e = example("suggested-workstation");

        assertThat(SuggestedConfig.yaml(workstation, defaults, pciIds)).isEqualTo(e.yaml());
        assertThat(served(run(e, Optional.of(fromConfigFile(e))))).isEqualTo(served(defaults));
    }

    @Test
    void vmExampleRequestsResourcesTheExamplesServe() throws Exception {
        JsonNode vm = new ObjectMapper(new YAMLFactory()).readTree(example("vm-t4-nvme").yaml());
        JsonNode devices = vm.at("/spec/template/spec/domain/devices");
        Example config = example("config-nvme");
        Map<String, List<String>> served = served(run(config, Optional.of(fromConfigFile(config))));

        List<String> gpus = new ArrayList<>();
        devices.get("gpus").forEach(g -> gpus.add(g.get("deviceName").asText()));
        List<String> hostDevices = new ArrayList<>();
        devices.get("hostDevices").forEach(h -> hostDevices.add(h.get("deviceName").asText()));

        assertThat(vm.get("kind").asText()).isEqualTo("VirtualMachine");
        assertThat(gpus).containsExactly("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/TU104GL_TESLA_T4");
        assertThat(hostDevices).containsExactly("intel.com/NVME_DC_P4510");
        assertThat(served.get("nvidia.com/TU104GL_TESLA_T4")).hasSizeGreaterThanOrEqualTo(2);
        assertThat(served).containsKey("intel.com/NVME_DC_P4510");
    }

    @Test
    void envVarNamedInTheGuideIsKubeVirtsName() {
        assertThat(guide).contains("`nvidia.com/TU104GL_TESLA_T4` → `"
                + KubeVirtEnv.variableName(DeviceKind.PCI, "nvidia.com/TU104GL_TESLA_T4") + "`");
    }
}
