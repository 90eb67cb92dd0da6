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
                true, Optional.empty(), Optional.empty(), Optional.empty(), UeventMode.off, "",
                new ServeConfig.Vgpu(false, temp.resolve("state"), temp.resolve("pod-resources.sock")), ServeConfig.Dra.OFF, "test");
        try (Closer closer = new Closer()) {
            ConfigWiring wiring = ConfigWiring.start(noApi, metrics, closer);

            wiring.problems().report("--config /etc/vfio-dp/config.yaml", List.of(NO_DOMAIN));

            assertThat(MetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of("missing_domain/pciHostDevices[2]", 1.0));
        }
    }
}
