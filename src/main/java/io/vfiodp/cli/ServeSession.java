package io.vfiodp.cli;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.triggers.VfioDirWatch;
import io.vfiodp.host.VfioApiCheck;
import io.vfiodp.host.VfioAvailability;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.metrics.MetricsServer;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.metrics.TimedSource;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.PluginListeners;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything {@code serve} runs, started in order and closed in reverse: the plugin runtime,
 * the {@code /dev/vfio} watch that triggers its rescans and the metrics endpoints. Device health
 * changes go to the metrics and, when given a recorder, to Events on the Node.
 */
final class ServeSession implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.health");
    static final Duration PROBE_ANSWER_WITHIN = Duration.ofSeconds(2);

    private final PluginRuntime runtime;
    private final List<AutoCloseable> closeInOrder;
    private final Optional<MetricsServer> metricsServer;

    private ServeSession(PluginRuntime runtime, List<AutoCloseable> closeInOrder, Optional<MetricsServer> metricsServer) {
        this.runtime = runtime;
        this.closeInOrder = closeInOrder;
        this.metricsServer = metricsServer;
    }

    /**
     * @param registry where the serving metrics are registered and what {@code /metrics} shows
     * @param events   the node's event recorder, when the API and the node name are known; owned by the caller
     */
    static ServeSession start(PluginSettings settings, NodeStateSource source, Path devRoot, Optional<InetSocketAddress> metricsAt,
                              PrometheusRegistry registry, Optional<NodeEventRecorder> events, String version) throws IOException {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            ServingMetrics metrics = new ServingMetrics(registry, version, Clock.systemUTC());
            VfioAvailability vfio = VfioApiCheck.check(devRoot);
            metrics.vfio(vfio);
            if (vfio instanceof VfioAvailability.Available) log.info("{}", vfio.describe());
            else log.warn("{}", vfio.describe());

            PluginListener listener = metrics;
            if (events.isPresent()) {
                NodeEventRecorder recorder = events.get();
                listener = PluginListeners.of(metrics, new HealthEvents(new HealthEvents.Sink() {
                    @Override public void warn(String reason, String message) { recorder.warn(reason, message); }
                    @Override public void normal(String reason, String message) { recorder.normal(reason, message); }
                }));
            } else {
                log.info("no Kubernetes API or node name (--kubevirt auto and --node-name / NODE_NAME): device health changes are logged,"
                        + " not posted as Node events");
            }
            PluginRuntime runtime = PluginRuntime.start(settings, new TimedSource(source, metrics), listener);
            started.add(runtime);
            started.add(VfioDirWatch.start(devRoot, runtime::rescanNow));
            Optional<MetricsServer> server = Optional.empty();
            if (metricsAt.isPresent()) {
                server = Optional.of(MetricsServer.start(metricsAt.get(), registry, metrics, runtime.loop()::status, PROBE_ANSWER_WITHIN));
                started.add(server.get());
            }
            return new ServeSession(runtime, List.copyOf(started.reversed()), server);
        } catch (IOException | RuntimeException e) {
            closeAll(started.reversed());
            throw e;
        }
    }

    PluginRuntime runtime() {
        return runtime;
    }

    Optional<Integer> metricsPort() {
        return metricsServer.map(MetricsServer::port);
    }

    @Override
    public void close() {
        closeAll(closeInOrder);
    }

    private static void closeAll(List<AutoCloseable> closeables) {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("shutdown of {} failed: {}", c.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
