package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code serve} wires together: runtime, /dev/vfio watch and metrics, on a fixture copy. */
class ServeAppTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path temp;

    /** serve on {@code host} without an API, a rescan timer that never fires during a test, endpoints on a free port. */
    static ServeConfig config(HostTree host, Path plugins) {
        return new ServeConfig(host.sys(), host.dev(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins, false, Optional.empty(),
                Optional.empty(), Optional.of(Duration.ofHours(1)), UeventMode.off, "127.0.0.1:0", "",
                new ServeConfig.Vgpu(false, host.root().resolve("state"), host.root().resolve("pod-resources.sock")), ServeConfig.Dra.OFF,
                "vfio-device-plugin test");
    }

    @Test
    void groupNodeRemovalReachesTheKubeletAndTheMetricsWithoutARescanTimer() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             ServeApp session = ServeApp.start(config(host, plugins));
             HttpClient http = HttpClient.newHttpClient()) {
            kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
            Watch w = kubelet.watch(T4);
            w.awaitUpdates(1, WAIT);

            host.removeGroupNode(25);
            w.awaitUpdate(r -> r.getDevicesList().stream().anyMatch(d -> d.getID().equals("0000:1b:00.0") && d.getHealth().equals("Unhealthy")), WAIT);
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + session.metricsPort().orElseThrow() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();

            assertThat(metrics.lines().filter(l -> l.startsWith("vfio_dp_devices{") || l.startsWith("vfio_dp_vfio_available ")))
                    .containsExactly(
                            "vfio_dp_devices{health=\"Healthy\",resource=\"nvidia.com/TU104GL_TESLA_T4\"} 2.0",
                            "vfio_dp_devices{health=\"Unhealthy\",resource=\"nvidia.com/TU104GL_TESLA_T4\"} 2.0",
                            // the fixture's dev/vfio/vfio is a regular file: the ioctl check says unavailable
                            "vfio_dp_vfio_available 0.0");
        }
    }

    private static int status(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void withAProbeAddressTheProbesAnswerThereAndTheMetricsOnlyOnTheMetricsAddress() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        ServeConfig base = config(host, plugins);
        ServeConfig split = new ServeConfig(base.sysfsRoot(), base.devRoot(), base.procRoot(), base.pciIds(), base.config(), plugins,
                base.followKubeVirt(), base.kubeApi(), base.nodeName(), base.rescanInterval(), base.uevents(), "127.0.0.1:0", "127.0.0.1:0",
                base.vgpu(), base.dra(), base.version());
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             ServeApp session = ServeApp.start(split);
             HttpClient http = HttpClient.newHttpClient()) {
            kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
            int probes = session.probePort().orElseThrow();
            int metrics = session.metricsPort().orElseThrow();

            assertThat(probes).isNotEqualTo(metrics);
            assertThat(status(http, probes, "/healthz")).isEqualTo(200);
            // ready or not (what the fixture lets doctor find), /readyz answers here
            assertThat(status(http, probes, "/readyz")).isIn(200, 503);
            assertThat(status(http, probes, "/metrics")).isEqualTo(404);
            assertThat(List.of(status(http, metrics, "/metrics"), status(http, metrics, "/healthz"), status(http, metrics, "/readyz")))
                    .containsExactly(200, 404, 404);
        }
    }
}
