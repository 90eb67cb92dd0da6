package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.ResourceName;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServingMetricsTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ServingMetrics metrics = new ServingMetrics(registry, "test", Clock.systemUTC());

    private static final PolicyProblem MALFORMED = new PolicyProblem(PolicyProblem.Severity.ERROR,
            "pciHostDevices[0] (pciVendorSelector '10DE-20B1', resourceName 'nvidia.com/A100') skipped: pciVendorSelector must be VVVV:DDDD");
    private static final PolicyProblem NO_DOMAIN = new PolicyProblem(PolicyProblem.Severity.ERROR,
            "mediatedDevices[2] (mdevNameSelector 'GRID T4-1Q', resourceName 'T4') skipped: resource name 'T4' has no domain prefix");

    @Test
    void currentEntryErrorsAreExposedWithReasonAndEntry() {
        metrics.configEntryErrors(List.of(MALFORMED, NO_DOMAIN));

        assertThat(MetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of("malformed_selector/pciHostDevices[0]", 1.0,
                "missing_domain/mediatedDevices[2]", 1.0));
    }

    @Test
    void fixedEntriesDisappear() {
        metrics.configEntryErrors(List.of(MALFORMED));

        metrics.configEntryErrors(List.of());

        assertThat(MetricsTestSupport.entryErrors(registry)).isEmpty();
    }

    @Test
    void theMetricIsInTheRegistryHandedIn() {
        assertThat(registry.scrape().stream().map(s -> s.getMetadata().getName())).contains("vfio_dp_config_entry_errors");
    }

    private double value(String name, String labelName, String labelValue) {
        for (var s : registry.scrape()) {
            if (!s.getMetadata().getName().equals(name)) continue;
            for (var p : ((io.prometheus.metrics.model.snapshots.GaugeSnapshot) s).getDataPoints()) {
                if (labelName == null || labelValue.equals(p.getLabels().get(labelName))) return p.getValue();
            }
        }
        throw new AssertionError("no sample of " + name);
    }

    @Test
    void kubevirtCrReadabilityIsOneOrZero() {
        metrics.kubevirtCrReadable(false);
        assertThat(value("vfio_dp_kubevirt_cr_readable", null, null)).isZero();

        metrics.kubevirtCrReadable(true);
        assertThat(value("vfio_dp_kubevirt_cr_readable", null, null)).isEqualTo(1.0);
    }

    @Test
    void vgpuLayoutStateIsOneForTheCurrentStateOnly() {
        metrics.vgpuLayoutState("pending");
        metrics.vgpuLayoutState("failed");

        assertThat(value("vfio_dp_vgpu_layout_state", "state", "failed")).isEqualTo(1.0);
        assertThat(value("vfio_dp_vgpu_layout_state", "state", "pending")).isZero();
        assertThat(value("vfio_dp_vgpu_layout_state", "state", "success")).isZero();
    }

    @Test
    void aVgpuLayoutStateTheAnnotationDoesNotWriteIsRefusedWithTheStatesItCanBe() {
        assertThatThrownBy(() -> metrics.vgpuLayoutState("done"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a vGPU layout state: 'done' (expected one of [pending, success, failed])");
    }

    @Test
    void observingEveryCounterAndHistogramStartsNoThreadOfTheMetricsLibrary() {
        ResourceName t4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
        metrics.allocated(t4, 1);
        metrics.allocationRefused(t4);
        metrics.registered(t4, false);
        metrics.registered(t4, true);
        metrics.reconciled(0.002);
        metrics.scanSucceeded(0.03);
        metrics.scanFailed(0.01);
        metrics.healthChanged(t4, "0000:1a:00.0", Health.HEALTHY, Health.unhealthy("fell off the bus"));
        metrics.draListener("vfio.example.com").prepareFailed("no such device");

        // with exemplars (the library's default) the first observation starts its scheduler thread, which never ends
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName).noneMatch(n -> n.startsWith("prometheus-metrics-scheduler"));
        assertThat(registry.scrape().stream().filter(s -> s.getMetadata().getName().equals("vfio_dp_allocations"))
                .flatMap(s -> ((CounterSnapshot) s).getDataPoints().stream()).map(CounterSnapshot.CounterDataPointSnapshot::getValue))
                .containsExactly(1.0);
    }
}
