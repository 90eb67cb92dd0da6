package io.vfiodp.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.Map;
import java.util.TreeMap;

/** Reads {@code vfio_dp_config_entry_errors} from a registry as a scrape would show it. */
public final class MetricsTestSupport {

    private MetricsTestSupport() {}

    /** {@code reason/entry -> value}. */
    public static Map<String, Double> entryErrors(PrometheusRegistry registry) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot s : registry.scrape()) {
            if (!s.getMetadata().getName().equals("vfio_dp_config_entry_errors")) continue;
            for (GaugeSnapshot.GaugeDataPointSnapshot p : ((GaugeSnapshot) s).getDataPoints()) {
                out.put(p.getLabels().get("reason") + "/" + p.getLabels().get("entry"), p.getValue());
            }
        }
        return out;
    }
}
