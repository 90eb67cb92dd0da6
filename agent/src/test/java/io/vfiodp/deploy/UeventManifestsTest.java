package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.vfiodp.serve.UeventMode;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What kernel uevents need from the pod, in every shipped DaemonSet: the pod's own user namespace
 * must be the host's ({@code hostUsers} unset or true), as a user namespace receives no uevents;
 * nothing more (no hostNetwork, no capability: the base DaemonSet drops them all), and serve is
 * left to listen ({@code --uevents} at its default, auto). (deploy/gpu-operator ships no DaemonSet:
 * the GPU Operator renders that pod.)
 */
class UeventManifestsTest {

    static Stream<Manifests> shipped() {
        return Stream.of("base", "overlays/vgpu", "overlays/monitoring", "dra").flatMap(k -> Manifests.of(k).stream());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shipped")
    void thePodKeepsTheHostsUserNamespaceAndNeedsNoHostNetwork(Manifests m) {
        PodSpec pod = m.daemonSet().getSpec().getTemplate().getSpec();
        assertThat(pod.getHostUsers()).as("hostUsers").isNotEqualTo(false);
        assertThat(pod.getHostNetwork()).as("hostNetwork").isNotEqualTo(true);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shipped")
    void serveListensToUeventsWhereTheKernelSendsThem(Manifests m) {
        UeventMode mode = BaseManifestsTest.option(BaseManifestsTest.serveOptions(m.container()), "--uevents");
        assertThat(mode).isEqualTo(UeventMode.auto);
    }
}
