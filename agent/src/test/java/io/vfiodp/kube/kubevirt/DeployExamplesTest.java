package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;

/** deploy/examples: the KubeVirt CR patch permits what the plugin serves, and the VM asks for it. */
class DeployExamplesTest {

    private static final Path CR_PATCH = Checkout.path("deploy/examples/kubevirt-permitted-host-devices.yaml");
    private static final Path VM = Checkout.path("deploy/examples/vm-with-gpu.yaml");

    private static PciIds pciIds;
    private static PermittedHostDevices permitted;

    @BeforeAll
    static void readThePatch() throws Exception {
        pciIds = PciIds.bundled();
        KubeVirt kv = Serialization.unmarshal(Files.readString(CR_PATCH), KubeVirt.class);
        kv.setMetadata(new ObjectMetaBuilder().withNamespace("kubevirt").withName("kubevirt").build());
        permitted = KubeVirtCrConverter.convert(kv, Map.of()).permittedHostDevices().orElseThrow();
    }

    private static Map<String, List<String>> served(String fixture, Optional<PermittedHostDevices> config) {
        PolicyResult r = PolicyEngine.evaluate(PermittedHostDevicesGuideTest.scan(fixture), config, pciIds);
        assertThat(r.problems()).as("configuration problems on " + fixture).isEmpty();
        Map<String, List<String>> out = new TreeMap<>();
        for (DesiredResource d : r.desiredState().resources().values()) {
            out.put(d.name().value(), d.devices().stream().map(ExposedDevice::id).toList());
        }
        return out;
    }

    private static List<String> externallyProvidedNames() {
        return Stream.concat(permitted.pciHostDevices().stream().filter(PciHostDevice::externalResourceProvider).map(e -> e.resourceName()),
                permitted.mediatedDevices().stream().filter(MediatedHostDevice::externalResourceProvider).map(e -> e.resourceName()))
                .toList();
    }

    @Test
    void patchServesTheFourPassthroughT4sUnderTheirDefaultName() {
        assertThat(served("t4-numa", Optional.of(permitted))).isEqualTo(Map.of("nvidia.com/TU104GL_TESLA_T4",
                List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0")));
    }

    @Test
    void patchServesTheT4VgpusUnderTheirDefaultNames() {
        Map<String, List<String>> served = served("t4-vgpu", Optional.of(permitted));

        assertThat(served.keySet()).containsExactly("nvidia.com/GRID_T4-1Q", "nvidia.com/GRID_T4-2Q");
        assertThat(served.get("nvidia.com/GRID_T4-1Q")).hasSize(3);
        assertThat(served.get("nvidia.com/GRID_T4-2Q")).hasSize(2);
    }

    @Test
    void switchingFromTheDefaultPolicyToThePatchRenamesNothing() {
        for (String fixture : List.of("t4-numa", "t4-vgpu")) {
            assertThat(served(fixture, Optional.of(permitted))).as(fixture).isEqualTo(served(fixture, Optional.empty()));
        }
    }

    @Test
    void everyEntryLeavesItsDevicesToThePlugin() {
        assertThat(externallyProvidedNames()).containsExactly("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/GRID_T4-1Q", "nvidia.com/GRID_T4-2Q");
    }

    @Test
    void vmRequestsItsGpuByANamePermittedForThePlugin() throws Exception {
        JsonNode vm = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(VM));
        List<String> gpus = new ArrayList<>();
        vm.at("/spec/template/spec/domain/devices/gpus").forEach(g -> gpus.add(g.get("deviceName").asText()));

        assertThat(vm.get("kind").asText()).isEqualTo("VirtualMachine");
        assertThat(gpus).containsExactly("nvidia.com/TU104GL_TESLA_T4");
        assertThat(externallyProvidedNames()).containsAll(gpus);
    }
}
