package io.vfiodp.metrics;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
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

    public PluginMetrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.configEntryErrors = Gauge.builder()
                .name("vfio_dp_config_entry_errors")
                .help("1 for every permittedHostDevices entry currently skipped because it is invalid, by reason and entry "
                        + "(e.g. pciHostDevices[2])")
                .labelNames("reason", "entry")
                .register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
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
