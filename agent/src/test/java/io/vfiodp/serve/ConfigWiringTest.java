package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.metrics.MetricsTestSupport;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.policy.PolicyProblem;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigWiringTest {

    private static final PolicyProblem NO_DOMAIN = new PolicyProblem(PolicyProblem.Severity.ERROR,
            "pciHostDevices[2] (pciVendorSelector '10DE:26B9', resourceName 'L40S') skipped: resource name 'L40S' has no domain prefix");

    @TempDir Path temp;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ServingMetrics metrics = new ServingMetrics(registry, "test", Clock.systemUTC());

    @Test
    void withoutAnApiAPassesProblemsAreCountedInTheMetrics() {
        ServeConfig noApi = new ServeConfig(temp.resolve("sys"), temp.resolve("dev"), temp.resolve("proc"), Optional.empty(), Optional.empty(), temp.resolve("plugins"),
                true, Optional.empty(), Optional.empty(), Optional.empty(), UeventMode.off, "", "",
                new ServeConfig.Vgpu(false, temp.resolve("state"), temp.resolve("pod-resources.sock")), ServeConfig.Dra.OFF, "test");
        try (Closer closer = new Closer()) {
            ConfigWiring wiring = ConfigWiring.start(noApi, metrics, closer);

            wiring.problems().report("--config /etc/vfio-dp/config.yaml", List.of(NO_DOMAIN));

            assertThat(MetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of("missing_domain/pciHostDevices[2]", 1.0));
        }
    }

    private ServeConfig config(boolean followKubeVirt, Optional<String> kubeApi, Optional<String> nodeName) {
        return new ServeConfig(temp.resolve("sys"), temp.resolve("dev"), temp.resolve("proc"), Optional.empty(), Optional.empty(),
                temp.resolve("plugins"), followKubeVirt, kubeApi, nodeName, Optional.empty(), UeventMode.off, "", "",
                new ServeConfig.Vgpu(false, temp.resolve("state"), temp.resolve("pod-resources.sock")), ServeConfig.Dra.OFF, "test");
    }

    @Test
    void withKubeVirtOffAndANodeNameTheReasonForNoEventsNamesBoth() {
        assertThat(ConfigWiring.withoutEvents(config(false, Optional.of("in-cluster service 10.96.0.1"), Optional.of("gpu-node-1")), false, false))
                .isEqualTo("with --kubevirt off and no --dra-resources serve does not use the Kubernetes API (--node-name gpu-node-1 is given)");
    }

    @Test
    void withAnApiButNoNodeNameTheReasonForNoEventsIsTheMissingName() {
        assertThat(ConfigWiring.withoutEvents(config(true, Optional.of("in-cluster service 10.96.0.1"), Optional.empty()), true, true))
                .isEqualTo("no node name (--node-name or NODE_NAME), so the Node to post on is unknown");
    }

    @Test
    void withAnApiWantedButNoneConfiguredTheReasonSaysWhatWasFound() {
        assertThat(ConfigWiring.withoutEvents(config(true, Optional.empty(), Optional.of("gpu-node-1")), true, false))
                .startsWith("no Kubernetes API configured (").contains("KUBERNETES_SERVICE_HOST");
    }
}
