package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.plugin.ResourceStatus;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.config.LocalConfig;
import io.vfiodp.serve.NodePass;
import io.vfiodp.serve.ServedHost;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP endpoints scraped over HTTP while the plugin serves a fixture to the kubelet simulator. */
class MetricsEndpointsTest {

    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000);

    @TempDir Path temp;
    private ServedHost served;
    private MetricsServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (server != null) server.close();
        if (served != null) served.close();
        http.close();
    }

    private void serveT4Numa() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        ServingMetrics metrics = new ServingMetrics(registry, "vfio-device-plugin 1.2.3", Clock.fixed(NOW, ZoneOffset.UTC));
        served = ServedHost.start(T4_NUMA, temp, Duration.ofHours(1), metrics,
                policy -> new NodePass(LocalConfig.of(Optional.empty()), Optional.empty(), policy, Optional.empty(), metrics, System::nanoTime,
                        Optional.empty(), wanted -> { }));
        served.kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        served.kubelet.watch(T4).awaitUpdates(1, WAIT);
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry, metrics, served.runtime.loop()::status, WAIT);
    }

    private void serveStatus(Supplier<CompletableFuture<List<ResourceStatus>>> status, Duration answerWithin) throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry,
                new ServingMetrics(registry, "v", Clock.systemUTC()), status, answerWithin);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private List<String> metricLines(String prefix) throws Exception {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body().lines().filter(l -> l.startsWith(prefix)).toList();
    }

    @Test
    void devicesAreCountedPerResourceAndHealth() throws Exception {
        serveT4Numa();

        assertThat(metricLines("vfio_dp_devices")).containsExactly(
                "vfio_dp_devices{health=\"Healthy\",resource=\"nvidia.com/TU104GL_TESLA_T4\"} 3.0",
                "vfio_dp_devices{health=\"Unhealthy\",resource=\"nvidia.com/TU104GL_TESLA_T4\"} 1.0");
    }

    @Test
    void allocatedDevicesAndRefusedAllocationsAreCountedPerResource() throws Exception {
        serveT4Numa();
        served.kubelet.allocate(T4, List.of(List.of("0000:1a:00.0", "0000:1b:00.0")));
        try {
            served.kubelet.allocate(T4, List.of(List.of("0000:b2:00.0")));
        } catch (io.grpc.StatusRuntimeException expected) {
            // the unhealthy T4 is refused; the metric below counts it
        }

        assertThat(metricLines("vfio_dp_allocation")).containsExactly(
                "vfio_dp_allocation_errors_total{resource=\"nvidia.com/TU104GL_TESLA_T4\"} 1.0",
                "vfio_dp_allocations_total{resource=\"nvidia.com/TU104GL_TESLA_T4\"} 2.0");
    }

    @Test
    void kubeletRestartCountsARegistrationAndAReregistration() throws Exception {
        serveT4Numa();

        served.kubelet.restart();
        served.kubelet.awaitRegistrations(List.of(T4), 2, WAIT);

        // counted once the kubelet's answer reaches the reconcile loop, a moment after the kubelet saw the request
        await().atMost(WAIT).untilAsserted(() -> assertThat(metricLines("vfio_dp_re").stream().filter(l -> l.contains("registrations_total")))
                .containsExactly("vfio_dp_registrations_total{resource=\"nvidia.com/TU104GL_TESLA_T4\"} 2.0",
                        "vfio_dp_reregistrations_total{resource=\"nvidia.com/TU104GL_TESLA_T4\"} 1.0"));
    }

    @Test
    void scanDurationAndLastSuccessfulScanAreRecorded() throws Exception {
        serveT4Numa();

        assertThat(metricLines("vfio_dp_scan_duration_seconds_count")).containsExactly("vfio_dp_scan_duration_seconds_count 1");
        assertThat(metricLines("vfio_dp_last_successful_scan_timestamp_seconds"))
                .containsExactly("vfio_dp_last_successful_scan_timestamp_seconds 1.7E9");
    }

    @Test
    void healthTransitionIsCountedWithItsReason() throws Exception {
        serveT4Numa();

        served.host.removeGroupNode(24);
        ServedHost.awaitUpdateAfter(served.kubelet.watch(T4), 1, ServedHost.has("0000:1a:00.0", "Unhealthy"), WAIT);

        assertThat(metricLines("vfio_dp_health_transitions_total")).containsExactly(
                "vfio_dp_health_transitions_total{health=\"Unhealthy\",reason=\"IOMMU group 24: /dev/vfio/24 missing\","
                        + "resource=\"nvidia.com/TU104GL_TESLA_T4\"} 1.0");
    }

    @Test
    void eachResourceSaysWhetherTheKubeletAcceptedIt() throws Exception {
        ResourceStatus waiting = new ResourceStatus(ResourceName.of(T4), temp.resolve("x.sock"), true, false, 4, 3, 0);
        ResourceStatus registered = new ResourceStatus(ResourceName.of("nvidia.com/22a3"), temp.resolve("y.sock"), true, true, 1, 1, 1);
        serveStatus(() -> CompletableFuture.completedFuture(List.of(waiting, registered)), WAIT);

        assertThat(metricLines("vfio_dp_resource_registered")).containsExactly(
                "vfio_dp_resource_registered{resource=\"nvidia.com/22a3\"} 1.0",
                "vfio_dp_resource_registered{resource=\"nvidia.com/TU104GL_TESLA_T4\"} 0.0");
    }

    @Test
    void resourcesNoLongerServedLeaveTheRegistrationGauge() throws Exception {
        java.util.concurrent.atomic.AtomicReference<List<ResourceStatus>> now = new java.util.concurrent.atomic.AtomicReference<>(
                List.of(new ResourceStatus(ResourceName.of(T4), temp.resolve("x.sock"), true, true, 4, 4, 1)));
        serveStatus(() -> CompletableFuture.completedFuture(now.get()), WAIT);
        metricLines("vfio_dp_resource_registered");

        now.set(List.of());

        assertThat(metricLines("vfio_dp_resource_registered")).isEmpty();
    }

    @Test
    void reconcilePassesAreTimed() throws Exception {
        serveT4Numa();

        assertThat(metricLines("vfio_dp_reconcile_duration_seconds_count")).singleElement()
                .satisfies(l -> assertThat(Double.parseDouble(l.substring(l.indexOf(' ') + 1))).isGreaterThanOrEqualTo(1));
    }

    @Test
    void buildInfoCarriesTheVersion() throws Exception {
        serveT4Numa();

        assertThat(metricLines("vfio_dp_build_info")).containsExactly("vfio_dp_build_info{version=\"vfio-device-plugin 1.2.3\"} 1.0");
    }

    @Test
    void healthzIsOkWhileTheReconcileLoopAnswers() throws Exception {
        serveT4Numa();

        HttpResponse<String> r = get("/healthz");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("ok: reconcile loop answered in ");
    }

    @Test
    void healthzFailsWhenTheReconcileLoopDoesNotAnswer() throws Exception {
        serveStatus(CompletableFuture::new, Duration.ofMillis(100));

        HttpResponse<String> r = get("/healthz");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("reconcile loop did not answer within 100 ms\n");
    }

    @Test
    void readyzIsReadyWhenEveryResourceIsRegistered() throws Exception {
        serveT4Numa();

        HttpResponse<String> r = get("/readyz");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ready: 1 resource(s) registered with the kubelet\n");
    }

    @Test
    void readyzNamesTheResourcesNotYetRegistered() throws Exception {
        ResourceStatus waiting = new ResourceStatus(ResourceName.of(T4), temp.resolve("x.sock"), true, false, 4, 3, 0);
        ResourceStatus registered = new ResourceStatus(ResourceName.of("nvidia.com/22a3"), temp.resolve("y.sock"), true, true, 1, 1, 1);
        serveStatus(() -> CompletableFuture.completedFuture(List.of(waiting, registered)), WAIT);

        HttpResponse<String> r = get("/readyz");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("not registered with the kubelet: nvidia.com/TU104GL_TESLA_T4\n");
    }

    @Test
    void readyzSaysWhyWhenNoDeviceOfTheNodeCanBePassedThrough() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry, new ServingMetrics(registry, "v", Clock.systemUTC()),
                () -> CompletableFuture.completedFuture(List.of()), Optional.empty(),
                () -> Optional.of("vfio.modules: not loaded: vfio_pci; passthrough: no device can be passed through"), WAIT);

        HttpResponse<String> r = get("/readyz");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("not ready: no device of this node can be passed through: vfio.modules: not loaded: vfio_pci;"
                + " passthrough: no device can be passed through\n");
    }

    @Test
    void thePassthroughMetricsNameTheFailingChecksOnlyWhileNothingCanBePassedThrough() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        ServingMetrics metrics = new ServingMetrics(registry, "v", Clock.systemUTC());
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry, metrics,
                () -> CompletableFuture.completedFuture(List.of()), WAIT);

        metrics.passthrough(false, List.of("iommu", "passthrough"));
        List<String> blocked = metricLines("vfio_dp_passthrough");
        metrics.passthrough(true, List.of());

        assertThat(blocked).containsExactly("vfio_dp_passthrough_blocked{check=\"iommu\"} 1.0",
                "vfio_dp_passthrough_blocked{check=\"passthrough\"} 1.0", "vfio_dp_passthrough_possible 0.0");
        assertThat(metricLines("vfio_dp_passthrough")).containsExactly("vfio_dp_passthrough_possible 1.0");
    }
}
