package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.KubeVirtStatus;
import io.vfiodp.policy.config.PciHostDevice;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KubeVirtCrReadingTest {

    private MockKubeApi api;
    private KubernetesClient client;

    @AfterEach
    void close() {
        if (client != null) client.close();
        if (api != null) api.close();
    }

    private KubeVirtCrReading read() {
        client = MockKubeApi.clientFor(api.port());
        return KubeVirtCrReading.read(client);
    }

    @Test
    void theCrInForceIsFoundWithItsPhaseAndPermittedDevices() {
        api = MockKubeApi.start().withKubeVirtCrd();
        KubeVirtCrs.create(api.client(), """
                pciHostDevices:
                - pciVendorSelector: "10DE:1EB8"
                  resourceName: nvidia.com/TU104GL_TESLA_T4
                  externalResourceProvider: true
                """);
        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").editStatus(kv -> {
            KubeVirtStatus status = new KubeVirtStatus();
            status.setPhase("Deployed");
            kv.setStatus(status);
            return kv;
        });

        KubeVirtCrReading.Found found = (KubeVirtCrReading.Found) read();

        assertThat(found.source()).isEqualTo(new CrRef("kubevirt", "kubevirt"));
        assertThat(found.phase()).contains("Deployed");
        assertThat(found.permittedHostDevices().orElseThrow().pciHostDevices())
                .containsExactly(new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", true));
        assertThat(found.ignored()).isEmpty();
    }

    @Test
    void noCrIsNoCr() {
        api = MockKubeApi.start().withKubeVirtCrd();

        assertThat(read()).isEqualTo(new KubeVirtCrReading.NoCr());
    }

    @Test
    void anApiWithoutKubeVirtsIsNotInstalled() {
        api = MockKubeApi.start();
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts").andReturn(404, "").always();

        assertThat(read()).isEqualTo(new KubeVirtCrReading.NotInstalled());
    }

    @Test
    void aForbiddenListIsUnreadableNamingTheRightToGrant() {
        api = MockKubeApi.start();
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts").andReturn(403, "").always();

        assertThat(read()).isEqualTo(new KubeVirtCrReading.Unreadable("forbidden (HTTP 403): grant list on kubevirts.kubevirt.io"));
    }

    @Test
    void noApiConfiguredAsksNothing() {
        assertThat(KubeVirtCrReading.fromEnvironment(Map.of(), Path.of("/nonexistent-home"))).isEqualTo(new KubeVirtCrReading.NoApi());
    }

    @Test
    void anApiThatDoesNotAnswerIsUnreadable() {
        int port = MockKubeApi.freePort();
        client = MockKubeApi.clientFor(port);

        assertThat(KubeVirtCrReading.read(client)).isInstanceOf(KubeVirtCrReading.Unreadable.class)
                .extracting(r -> ((KubeVirtCrReading.Unreadable) r).reason()).asString().startsWith("API server unreachable");
    }
}
