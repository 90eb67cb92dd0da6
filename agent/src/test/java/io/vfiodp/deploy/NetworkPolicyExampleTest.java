package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.IOException;
import java.nio.file.Files;
import io.vfiodp.checkout.Checkout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * deploy/examples/networkpolicy-metrics.yaml against deploy/base's DaemonSet: it selects the
 * plugin's pods, in their namespace, and opens only their metrics port. (The agent's class path
 * has no typed NetworkPolicy; the fields are read as the API server reads them.)
 */
class NetworkPolicyExampleTest {

    static final Path EXAMPLE = Checkout.path("deploy", "examples/networkpolicy-metrics.yaml");

    static Stream<Manifests> base() {
        return Manifests.of("base").stream();
    }

    private static JsonNode policy() throws IOException {
        JsonNode policy = new YAMLMapper().readTree(Files.readString(EXAMPLE));
        assertThat(policy.path("apiVersion").asString()).isEqualTo("networking.k8s.io/v1");
        assertThat(policy.path("kind").asString()).isEqualTo("NetworkPolicy");
        return policy;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void thePolicySelectsThePluginsPodsInTheirNamespaceForIngressOnly(Manifests m) throws IOException {
        JsonNode policy = policy();
        DaemonSet ds = m.daemonSet();
        Map<String, String> podLabels = ds.getSpec().getTemplate().getMetadata().getLabels();

        assertThat(policy.path("metadata").path("namespace").asString()).isEqualTo(ds.getMetadata().getNamespace());
        JsonNode matchLabels = policy.path("spec").path("podSelector").path("matchLabels");
        assertThat(matchLabels.propertyNames()).isNotEmpty().allSatisfy(label ->
                assertThat(podLabels).containsEntry(label, matchLabels.path(label).asString()));
        JsonNode types = policy.path("spec").path("policyTypes");
        assertThat(types.size()).isEqualTo(1);
        assertThat(types.path(0).asString()).isEqualTo("Ingress");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void theOnlyPortItOpensIsTheMetricsPortOfTheContainer(Manifests m) throws IOException {
        JsonNode ingress = policy().path("spec").path("ingress");
        List<ContainerPort> ports = m.container().getPorts();

        assertThat(ingress.size()).isEqualTo(1);
        assertThat(ingress.path(0).path("from").size()).isPositive();
        assertThat(ingress.path(0).path("ports").size()).isEqualTo(1);
        assertThat(ingress.path(0).path("ports").path(0).path("port").asString()).isEqualTo("metrics");
        assertThat(ingress.path(0).path("ports").path(0).path("protocol").asString()).isEqualTo("TCP");
        assertThat(ports).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("metrics");
            assertThat(p.getContainerPort()).isEqualTo(9402);
        });
    }
}
