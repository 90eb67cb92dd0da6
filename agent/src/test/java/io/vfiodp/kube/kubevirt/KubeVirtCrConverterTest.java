package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.policy.config.DesiredMdevTypes;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubeVirtCrConverterTest {

    static KubeVirt load(String resource) throws IOException {
        try (InputStream in = KubeVirtCrConverterTest.class.getResourceAsStream("/kubevirt/" + resource)) {
            return Serialization.unmarshal(in, KubeVirt.class);
        }
    }

    static KubeVirt parse(String yaml) {
        return Serialization.unmarshal(yaml, KubeVirt.class);
    }

    @Test
    void realCrKeepsTheFieldsWeDoNotModel() throws IOException {
        KubeVirt kv = load("kubevirt-cr-full.yaml");

        assertThat(kv.getSpec().getAdditionalProperties()).containsEntry("imagePullPolicy", "IfNotPresent");
        assertThat(kv.getSpec().getConfiguration().getAdditionalProperties())
                .containsEntry("developerConfiguration", Map.of("featureGates", List.of("GPU", "HostDevices", "DisableMDEVConfiguration")));
        assertThat(kv.getStatus().getPhase()).isEqualTo("Deployed");
        assertThat(kv.getStatus().getAdditionalProperties()).containsEntry("observedKubeVirtVersion", "v1.2.0");
        assertThat(kv.getSpec().getConfiguration().getPermittedHostDevices().getUsb().get(0).getSelectors().get(0).getVendor())
                .isEqualTo("46f4");
    }

    @Test
    void realCrConvertsEveryPermittedEntryInOrderWithItsProviderFlag() throws IOException {
        KubeVirtConfig.FromCr config = KubeVirtCrConverter.convert(load("kubevirt-cr-full.yaml"), Map.of());

        assertThat(config.source()).isEqualTo(new CrRef("kubevirt", "kubevirt"));
        assertThat(config.permittedHostDevices()).contains(new io.vfiodp.policy.config.PermittedHostDevices(
                List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", true),
                        new PciHostDevice("8086:0B2B", "intel.com/qat", false)),
                List.of(new MediatedHostDevice("GRID T4-1Q", "nvidia.com/GRID_T4-1Q", true))));
    }

    @Test
    void realCrResolvesMdevTypesForTheNodesLabels() throws IOException {
        KubeVirt kv = load("kubevirt-cr-full.yaml");

        assertThat(KubeVirtCrConverter.convert(kv, Map.of("nvidia.com/gpu.product", "Tesla-T4")).mdevTypes())
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-223"), true, "nodeMediatedDeviceTypes[0]"));
        assertThat(KubeVirtCrConverter.convert(kv, Map.of("nvidia.com/gpu.product", "A10")).mdevTypes())
                .isEqualTo(new DesiredMdevTypes(List.of("nvidia-222"), true, "mediatedDeviceTypes"));
    }

    @Test
    void crWithoutPermittedHostDevicesGivesNoPermittedDevices() {
        KubeVirt kv = parse("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: kubevirt, namespace: kubevirt}
                spec:
                  configuration:
                    developerConfiguration: {featureGates: [GPU]}
                """);

        KubeVirtConfig.FromCr config = KubeVirtCrConverter.convert(kv, Map.of());

        assertThat(config.permittedHostDevices()).isEmpty();
        assertThat(config.mdevTypes()).isEqualTo(DesiredMdevTypes.NONE);
    }

    @Test
    void crWithoutSpecGivesNoPermittedDevices() {
        KubeVirt kv = parse("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: kv, namespace: ns}
                """);

        assertThat(KubeVirtCrConverter.convert(kv, Map.of()))
                .isEqualTo(new KubeVirtConfig.FromCr(new CrRef("ns", "kv"), Optional.empty(), DesiredMdevTypes.NONE));
    }

    @Test
    void emptyPermittedHostDevicesIsPresentAndEmpty() {
        KubeVirt kv = parse("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: kubevirt, namespace: kubevirt}
                spec: {configuration: {permittedHostDevices: {}}}
                """);

        assertThat(KubeVirtCrConverter.convert(kv, Map.of()).permittedHostDevices())
                .contains(new io.vfiodp.policy.config.PermittedHostDevices(List.of(), List.of()));
    }

    @Test
    void missingFieldsBecomeEmptyStringsAndKeepTheEntryIndex() {
        KubeVirt kv = parse("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: kubevirt, namespace: kubevirt}
                spec:
                  configuration:
                    permittedHostDevices:
                      pciHostDevices:
                      - resourceName: nvidia.com/A
                        externalResourceProvider: true
                      -
                      - pciVendorSelector: 10de:2236
                        resourceName: nvidia.com/A10
                        externalResourceProvider: true
                """);

        assertThat(KubeVirtCrConverter.convert(kv, Map.of()).permittedHostDevices().orElseThrow().pciHostDevices())
                .containsExactly(new PciHostDevice("", "nvidia.com/A", true),
                        new PciHostDevice("", "", false),
                        new PciHostDevice("10de:2236", "nvidia.com/A10", true));
    }
}
