package io.vfiodp.metrics;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.vgpu.LayoutState;
import java.util.Collection;
import java.util.Objects;

/**
 * The plugin's Prometheus metrics, all registered in the one registry handed in. Add a metric as
 * a field registered in the constructor, with a method that states what it records.
 */
public final class PluginMetrics {

    /** One label set of {@code vfio_dp_config_entry_errors}: why, and which entry. */
    public record EntryErrorLabels(String reason, String entry) {
        public EntryErrorLabels {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(entry, "entry");
        }
    }

    private final PrometheusRegistry registry;
    private final Gauge configEntryErrors;
    private final Gauge kubevirtCrReadable;
    private final Gauge vgpuLayoutState;

    public PluginMetrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.configEntryErrors = Gauge.builder()
                .name("vfio_dp_config_entry_errors")
                .help("1 for every permittedHostDevices entry currently skipped because it is invalid, by reason and entry "
                        + "(e.g. pciHostDevices[2])")
                .labelNames("reason", "entry")
                .register(registry);
        this.kubevirtCrReadable = Gauge.builder()
                .name("vfio_dp_kubevirt_cr_readable")
                .help("1 while the KubeVirt CRs can be listed and watched (or KubeVirt is not installed), 0 while the API refuses or fails; "
                        + "only with --kubevirt auto and an API")
                .register(registry);
        this.vgpuLayoutState = Gauge.builder()
                .name("vfio_dp_vgpu_layout_state")
                .help("1 for the state of the last vGPU layout reconcile (pending, success, failed), 0 for the others; only with --manage-vgpus")
                .labelNames("state")
                .register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** Whether the last attempt to list or watch the KubeVirt CRs got an answer the configuration can follow. */
    public void kubevirtCrReadable(boolean readable) {
        kubevirtCrReadable.set(readable ? 1 : 0);
    }

    /** The state the last vGPU layout reconcile reported (the node annotation's value). */
    public synchronized void vgpuLayoutState(LayoutState state) {
        for (LayoutState s : LayoutState.values()) vgpuLayoutState.labelValues(s.wireValue()).set(s == state ? 1 : 0);
    }

    /**
     * Replaces the set of currently skipped configuration entries: entries fixed since the last
     * call disappear from the metric.
     */
    public synchronized void setConfigEntryErrors(Collection<EntryErrorLabels> current) {
        configEntryErrors.clear();
        for (EntryErrorLabels l : current) {
            configEntryErrors.labelValues(l.reason(), l.entry()).set(1);
        }
    }
}
