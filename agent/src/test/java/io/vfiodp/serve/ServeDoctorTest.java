package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.plugin.ServeJvm;
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

/** doctor inside serve: the summary line at start, and /readyz and the metrics when the node can pass nothing through. */
class ServeDoctorTest {

    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir Path temp;

    private static ServeConfig config(String node, Path plugins) {
        Path root = SysfsFixtures.committedRoot().resolve(node);
        return new ServeConfig(root.resolve("sys"), root.resolve("dev"), root.resolve("proc"), Optional.empty(), Optional.empty(), plugins,
                false, Optional.empty(), Optional.empty(), Optional.of(Duration.ofHours(1)), UeventMode.off, "127.0.0.1:0", "",
                new ServeConfig.Vgpu(false, plugins.resolve("state"), plugins.resolve("pod-resources.sock")), ServeConfig.Dra.OFF, "test");
    }

    private static String get(HttpClient http, ServeApp serve, String path, int[] status) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serve.metricsPort().orElseThrow() + path))
                .build(), HttpResponse.BodyHandlers.ofString());
        status[0] = r.statusCode();
        return r.body();
    }

    @Test
    void aNodeThatCanPassNothingThroughIsNotReadyAndSaysWhy() throws Exception {
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             ServeApp serve = ServeApp.start(config("doctor-iommu-off", plugins));
             HttpClient http = HttpClient.newHttpClient()) {
            int[] status = new int[1];
            String readyz = get(http, serve, "/readyz", status);

            assertThat(status[0]).isEqualTo(503);
            assertThat(readyz).startsWith("not ready: no device of this node can be passed through: iommu: off: the kernel made no IOMMU groups;");
            assertThat(readyz).contains("; passthrough: no device can be passed through: 0000:01:00.0: bound to nouveau");
            assertThat(get(http, serve, "/metrics", status).lines().filter(l -> l.startsWith("vfio_dp_passthrough"))).containsExactly(
                    "vfio_dp_passthrough_blocked{check=\"iommu\"} 1.0",
                    "vfio_dp_passthrough_blocked{check=\"iommu.cmdline\"} 1.0",
                    "vfio_dp_passthrough_blocked{check=\"iommu.interrupt-remapping\"} 1.0",
                    "vfio_dp_passthrough_blocked{check=\"passthrough\"} 1.0",
                    "vfio_dp_passthrough_blocked{check=\"vfio.container\"} 1.0",
                    "vfio_dp_passthrough_blocked{check=\"vfio.modules\"} 1.0",
                    "vfio_dp_passthrough_possible 0.0");
        }
    }

    @Test
    void aNodeWithADeviceToPassThroughIsReadyOnceRegistered() throws Exception {
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins);
             ServeApp serve = ServeApp.start(config("doctor-ready", plugins));
             HttpClient http = HttpClient.newHttpClient()) {
            kubelet.awaitRegistrations(List.of("nvidia.com/TU104GL_TESLA_T4"), 1, WAIT);
            int[] status = new int[1];

            await().atMost(WAIT).until(() -> get(http, serve, "/readyz", status).startsWith("ready: ") && status[0] == 200);
            assertThat(get(http, serve, "/metrics", status).lines().filter(l -> l.startsWith("vfio_dp_passthrough")))
                    .containsExactly("vfio_dp_passthrough_possible 1.0");
        }
    }

    @Test
    void serveSaysInOneLineAtStartWhatDoctorFound() throws Exception {
        Path node = SysfsFixtures.committedRoot().resolve("doctor-amd-shared");
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        Path log = temp.resolve("serve.log");
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            Process serve = ServeJvm.start(node, plugins, log, "--proc-root", node.resolve("proc").toString());
            try {
                await().atMost(WAIT).until(() -> Files.readString(log).contains(" doctor: "));
                String line = Files.readString(log).lines().filter(l -> l.contains(" doctor: ")).findFirst().orElseThrow();

                assertThat(line.substring(line.indexOf(" WARN ") + 1)).isEqualTo("WARN doctor: not ready: 1 fail, 9 warn, 32 ok (vfio.container: "
                        + node.resolve("dev/vfio/vfio") + ": VFIO_GET_API_VERSION failed: errno 25 (Inappropriate ioctl for device));"
                        + " `vfio-device-plugin doctor` prints every check with its fix");
            } finally {
                serve.destroyForcibly().waitFor();
            }
        }
    }
}
