package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.bench.PluginRun.Expectation;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PeerComparisonTest {

    @Test
    void anImageIsLabelledByTheCheckoutItWasBuiltIn() {
        assertThat(PeerComparison.label(Path.of("/work/wt/perf-baseline/image/target/image"))).isEqualTo("perf-baseline");
        assertThat(PeerComparison.label(Path.of("/tmp/image-c2"))).isEqualTo("image-c2");
    }

    @Test
    void allocateIsTimedOnAResourceEveryPluginServes() {
        Expectation ours = expectation("nvidia.com/GRID_T4-1Q", 8, "nvidia.com/TU104GL_TESLA_T4", 4);
        Expectation theirs = expectation("nvidia.com/TU104GL_TESLA_T4", 4, "nvidia.com/TU104_HIGH_DEFINITION_AUDIO_CONTROLLER", 4);

        assertThat(PeerComparison.allocationTarget(List.of(ours, theirs))).isEqualTo("nvidia.com/TU104GL_TESLA_T4");
        assertThatThrownBy(() -> PeerComparison.allocationTarget(List.of(ours, expectation("nvidia.com/A100", 1, "nvidia.com/H100", 1))))
                .hasMessageContaining("no resource of the same name");
    }

    private static Expectation expectation(String r1, int n1, String r2, int n2) {
        TreeMap<String, Integer> m = new TreeMap<>();
        m.put(r1, n1);
        m.put(r2, n2);
        return new Expectation(m);
    }
}
