package io.vfiodp.deploy;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kustomize variant with a DaemonSet keeps {@link PodSpecRules} (the chart's: HelmChartTest). */
class PodSpecRulesTest {

    static Stream<Manifests> variants() {
        return Stream.of("base", "overlays/vgpu", "overlays/monitoring", "dra").flatMap(k -> Manifests.of(k).stream());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void keepsTheContainersOwnPathsMountsPodResourcesReadOnlyAndProbesStartFirst(Manifests m) {
        PodSpecRules.check(m.toString(), m.daemonSet());
    }
}
