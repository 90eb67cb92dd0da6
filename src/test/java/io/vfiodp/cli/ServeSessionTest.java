package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.health.HostTree;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.demo.kubelet.KubeletSimulator;
import io.vfiodp.demo.kubelet.Watch;
import java.net.InetSocketAddress;
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
class ServeSessionTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir Path temp;

    @Test
    void groupNodeRemovalReachesTheKubeletAndTheMetricsWithoutARescanTimer() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        ScanPolicySource source = new ScanPolicySource(new SysfsScanner(host.sys(), host.dev())::scan, Optional.empty(), PciIds.bundled());
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             ServeSession session = ServeSession.start(PluginSettings.of(plugins, Duration.ofHours(1)), source, host.dev(),
                     Optional.of(new InetSocketAddress("127.0.0.1", 0)), new PrometheusRegistry(), Optional.empty(),
                     "vfio-device-plugin test");
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
}
