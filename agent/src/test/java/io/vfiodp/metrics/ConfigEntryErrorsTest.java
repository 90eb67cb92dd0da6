package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code vfio_dp_config_entry_errors} from the problems the policy itself reports. */
class ConfigEntryErrorsTest {

    private static PciIds pciIds;

    @BeforeAll
    static void loadPciIds() throws Exception {
        pciIds = PciIds.bundled();
    }

    /** One entry of every kind the policy skips or overrides, among valid ones. */
    static final PermittedHostDevices BAD = new PermittedHostDevices(List.of(
            new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", true),
            new PciHostDevice("10DE-20B1", "nvidia.com/A100", true),
            new PciHostDevice("10DE:26B9", "L40S", true),
            new PciHostDevice("10DE:26BA", "nvidia.com/L40S_", true),
            new PciHostDevice("10de:1eb8", "nvidia.com/T4", true)), List.of(
            new MediatedHostDevice("GRID T4-1Q", "nvidia.com/GRID_T4-1Q", true),
            new MediatedHostDevice("", "nvidia.com/X", true),
            new MediatedHostDevice("GRID_T4-2Q", "nvidia.com/T4", true)));

    /** One GPU named by an entry virt-handler serves and by one we would serve. */
    static final PermittedHostDevices TWO_PROVIDERS = new PermittedHostDevices(List.of(
            new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", false),
            new PciHostDevice("10DE:1EB8", "nvidia.com/T4_PASSTHROUGH", true)), List.of());

    static List<PolicyProblem> problemsOf(PermittedHostDevices config) {
        return PolicyEngine.evaluate(HostSnapshot.EMPTY, Optional.of(config), pciIds).problems();
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ServingMetrics metrics = new ServingMetrics(registry, "test", Clock.systemUTC());

    @Test
    void everyKindOfPolicyProblemGetsItsMetricLabels() {
        assertThat(problemsOf(BAD)).extracting(EntryErrorLabels::of).containsExactlyInAnyOrder(
                new EntryErrorLabels("malformed_selector", "pciHostDevices[1]"),
                new EntryErrorLabels("missing_domain", "pciHostDevices[2]"),
                new EntryErrorLabels("invalid_resource_name", "pciHostDevices[3]"),
                new EntryErrorLabels("duplicate_selector", "pciHostDevices[4]"),
                new EntryErrorLabels("malformed_selector", "mediatedDevices[1]"),
                new EntryErrorLabels("mixed_kinds", "mediatedDevices[2]"));
    }

    @Test
    void problemsAreExposedAsMetricAndFixedOnesDisappear() {
        metrics.configEntryErrors(problemsOf(BAD));
        assertThat(MetricsTestSupport.entryErrors(registry)).hasSize(6).containsEntry("missing_domain/pciHostDevices[2]", 1.0);

        metrics.configEntryErrors(List.of());

        assertThat(MetricsTestSupport.entryErrors(registry)).isEmpty();
    }

    @Test
    void aSelectorKubeVirtServesNamedByAnExternalEntryIsAnErrorMetricNamingTheExternalEntry() {
        assertThat(problemsOf(TWO_PROVIDERS)).extracting(EntryErrorLabels::of)
                .containsExactly(new EntryErrorLabels("served_by_kubevirt", "pciHostDevices[1]"));

        metrics.configEntryErrors(problemsOf(TWO_PROVIDERS));

        assertThat(MetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of("served_by_kubevirt/pciHostDevices[1]", 1.0));
    }
}
