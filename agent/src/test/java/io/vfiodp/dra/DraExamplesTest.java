package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * deploy/examples' DRA manifests: each claim template's class and selector pick exactly the devices
 * meant on the fixture nodes (the CEL expressions are evaluated by {@link SimpleCel}, which knows
 * only the comparisons they use), and the VMI refers to the template and request as KubeVirt needs.
 */
class DraExamplesTest {

    static final Path TEMPLATES = Checkout.path("deploy/examples/dra-resourceclaimtemplates.yaml");
    static final Path VMI = Checkout.path("deploy/examples/vmi-with-dra-gpu.yaml");
    static final Path CLASSES = Checkout.path("deploy/dra/deviceclasses.yaml");
    static final Path EXTENDED_CLASSES = Checkout.path("deploy/dra/deviceclasses-extended-resources.yaml");

    static <T> List<T> all(Path file, Class<T> type) throws IOException {
        List<T> out = new ArrayList<>();
        for (String doc : Files.readString(file).split("(?m)^---$")) {
            if (!doc.isBlank()) out.add(Serialization.unmarshal(doc, type));
        }
        return out;
    }

    /** The devices of {@code node} that {@code request}'s class and selectors admit, by name. */
    static List<String> matching(String node, DeviceRequest request) throws IOException {
        DeviceClass cls = all(CLASSES, DeviceClass.class).stream()
                .filter(c -> c.getMetadata().getName().equals(request.getExactly().getDeviceClassName())).findFirst().orElseThrow();
        List<String> expressions = new ArrayList<>();
        cls.getSpec().getSelectors().forEach(s -> expressions.add(s.getCel().getExpression()));
        request.getExactly().getSelectors().forEach(s -> expressions.add(s.getCel().getExpression()));
        DriverView view = DriverView.of(DraNodes.allDra(node));
        return view.devices().values().stream().filter(DraDevice::healthy)
                .filter(d -> expressions.stream().allMatch(e -> SimpleCel.matches(e, DraNodes.DRIVER, d))).map(DraDevice::name).toList();
    }

    @Test
    void theT4TemplateTakesAWholeT4AndNoVgpu() throws IOException {
        ResourceClaimTemplate t = all(TEMPLATES, ResourceClaimTemplate.class).get(0);
        assertThat(t.getMetadata().getName()).isEqualTo("t4-passthrough");
        DeviceRequest r = t.getSpec().getSpec().getDevices().getRequests().getFirst();
        assertThat(matching("t4-numa", r)).containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0");
        assertThat(matching("t4-vgpu", r)).isEmpty();
        assertThat(matching("l40s-sriov", r)).isEmpty();
    }

    @Test
    void theVgpuTemplateTakesAGridT4OneQOnly() throws IOException {
        DeviceRequest r = all(TEMPLATES, ResourceClaimTemplate.class).get(1).getSpec().getSpec().getDevices().getRequests().getFirst();
        assertThat(matching("t4-vgpu", r)).containsExactly("mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27",
                "mdev-5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30", "mdev-c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59");
        assertThat(matching("t4-numa", r)).isEmpty();
    }

    /** The devices of {@code node} that the shipped class with extended resource name {@code resource} admits, by name. */
    static List<String> admittedFor(String node, String resource) throws IOException {
        DeviceClass cls = all(EXTENDED_CLASSES, DeviceClass.class).stream()
                .filter(c -> c != null && resource.equals(c.getSpec().getExtendedResourceName())).findFirst().orElseThrow();
        DriverView view = DriverView.of(DraNodes.allDra(node));
        return view.devices().values().stream().filter(d -> cls.getSpec().getSelectors().stream()
                .allMatch(s -> SimpleCel.matches(s.getCel().getExpression(), DraNodes.DRIVER, d))).map(DraDevice::name).toList();
    }

    @Test
    void eachExtendedResourceClassAdmitsExactlyTheDevicesOfItsResource() throws IOException {
        assertThat(admittedFor("t4-numa", "nvidia.com/TU104GL_TESLA_T4")).containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0",
                "pci-0000-b1-00-0", "pci-0000-b2-00-0");
        assertThat(admittedFor("t4-vgpu", "nvidia.com/TU104GL_TESLA_T4")).isEmpty();
        assertThat(admittedFor("t4-vgpu", "nvidia.com/GRID_T4-1Q")).containsExactly("mdev-0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27",
                "mdev-5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30", "mdev-c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59");
        assertThat(admittedFor("t4-numa", "nvidia.com/GRID_T4-1Q")).isEmpty();
    }

    @Test
    void theVmiNamesTheTemplateAndItsRequestAndNoDeviceName() throws IOException {
        JsonNode vmi = new YAMLMapper().readTree(Files.readString(VMI));
        ResourceClaimTemplate t = all(TEMPLATES, ResourceClaimTemplate.class).get(0);
        JsonNode claim = vmi.path("spec").path("resourceClaims").get(0);
        JsonNode gpu = vmi.path("spec").path("domain").path("devices").path("gpus").get(0);
        assertThat(claim.path("resourceClaimTemplateName").asString()).isEqualTo(t.getMetadata().getName());
        assertThat(gpu.path("claimName").asString()).isEqualTo(claim.path("name").asString());
        assertThat(gpu.path("requestName").asString()).isEqualTo(t.getSpec().getSpec().getDevices().getRequests().getFirst().getName());
        assertThat(gpu.has("deviceName")).isFalse();
        // the path its comment names is where the driver's metadata file appears for this claim
        String path = new ClaimFiles(DraNodes.DRIVER, Path.of("/p"), Path.of("/c")).containerPath(
                new PreparedClaim("u", "gpu-workloads", "vmi-t4-dra-gpu-x1", Optional.of(claim.path("name").asString()), List.of()),
                gpu.path("requestName").asString());
        assertThat(Files.readString(VMI)).contains(path);
    }

    /**
     * The two CEL forms the shipped classes and examples use, joined by {@code &&}:
     * {@code device.driver == 'x'} and {@code device.attributes['domain'].name == 'x'}; anything
     * else fails the test rather than being guessed at.
     */
    static final class SimpleCel {
        private static final Pattern DRIVER = Pattern.compile("device\\.driver == '([^']*)'");
        private static final Pattern ATTRIBUTE = Pattern.compile("device\\.attributes\\['([^']*)'\\]\\.([A-Za-z0-9_]+) == '([^']*)'");

        static boolean matches(String expression, String driver, DraDevice d) {
            for (String term : expression.split("&&")) {
                String t = term.strip();
                Matcher m = DRIVER.matcher(t);
                if (m.matches()) {
                    if (!m.group(1).equals(driver)) return false;
                    continue;
                }
                m = ATTRIBUTE.matcher(t);
                if (!m.matches()) throw new AssertionError("unsupported CEL term: " + t);
                if (!m.group(1).equals(driver)) return false;
                AttributeValue v = d.attributes().get(m.group(2));
                if (!(v instanceof AttributeValue.Text(String text)) || !text.equals(m.group(3))) return false;
            }
            return true;
        }
    }
}
