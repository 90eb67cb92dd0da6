package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.vgpu.LayoutEvents;
import io.vfiodp.vgpu.LayoutState;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class VgpuWiringTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ServingMetrics metrics = new ServingMetrics(registry, "test", Clock.systemUTC());

    @Test
    void everyLayoutStateIsTheOneStateSetInTheMetrics() {
        LayoutEvents counted = VgpuWiring.countedIn(LayoutEvents.NONE, metrics);

        for (LayoutState state : LayoutState.values()) {
            counted.state(state, "a layout step");

            assertThat(layoutStates()).as("after %s", state)
                    .containsEntry(state.wireValue(), 1.0)
                    .hasSize(LayoutState.values().length)
                    .allSatisfy((name, value) -> assertThat(value).isEqualTo(name.equals(state.wireValue()) ? 1.0 : 0.0));
        }
    }

    /** {@code vfio_dp_vgpu_layout_state} by its {@code state} label. */
    private Map<String, Double> layoutStates() {
        Map<String, Double> states = new TreeMap<>();
        for (MetricSnapshot s : registry.scrape()) {
            if (!s.getMetadata().getName().equals("vfio_dp_vgpu_layout_state")) continue;
            for (GaugeSnapshot.GaugeDataPointSnapshot p : ((GaugeSnapshot) s).getDataPoints()) {
                states.put(p.getLabels().get("state"), p.getValue());
            }
        }
        return states;
    }
}
