package io.vfiodp.deploy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shipped kustomize DaemonSet keeps {@link PodSpecRules} (the chart's: HelmChartTest). */
class PodSpecRulesTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.vfiodp.deploy.UeventManifestsTest#shipped")
    void keepsTheContainersOwnPathsMountsPodResourcesReadOnlyAndProbesStartFirst(Manifests m) {
        PodSpecRules.check(m.toString(), m.daemonSet());
    }
}
