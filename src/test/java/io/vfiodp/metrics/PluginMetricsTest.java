package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginMetricsTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PluginMetrics metrics = new PluginMetrics(registry);

    @Test
    void currentEntryErrorsAreExposedWithReasonAndEntry() {
        metrics.setConfigEntryErrors(List.of(new PluginMetrics.EntryErrorLabels("malformed_selector", "pciHostDevices[0]"),
                new PluginMetrics.EntryErrorLabels("missing_domain", "mediatedDevices[2]")));

        assertThat(PluginMetricsTestSupport.entryErrors(registry)).isEqualTo(Map.of("malformed_selector/pciHostDevices[0]", 1.0,
                "missing_domain/mediatedDevices[2]", 1.0));
    }

    @Test
    void fixedEntriesDisappear() {
        metrics.setConfigEntryErrors(List.of(new PluginMetrics.EntryErrorLabels("malformed_selector", "pciHostDevices[0]")));

        metrics.setConfigEntryErrors(List.of());

        assertThat(PluginMetricsTestSupport.entryErrors(registry)).isEmpty();
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
        metrics.vgpuLayoutState(io.vfiodp.vgpu.LayoutState.PENDING);
        metrics.vgpuLayoutState(io.vfiodp.vgpu.LayoutState.FAILED);

        assertThat(value("vfio_dp_vgpu_layout_state", "state", "failed")).isEqualTo(1.0);
        assertThat(value("vfio_dp_vgpu_layout_state", "state", "pending")).isZero();
        assertThat(value("vfio_dp_vgpu_layout_state", "state", "success")).isZero();
    }

    @Test
    void theRegistryHandedInIsTheOneUsed() {
        assertThat(metrics.registry()).isSameAs(registry);
        assertThat(registry.scrape().stream().map(s -> s.getMetadata().getName())).contains("vfio_dp_config_entry_errors");
    }
}
