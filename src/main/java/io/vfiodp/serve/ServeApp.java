package io.vfiodp.serve;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.ReaderPool;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.host.VfioApiCheck;
import io.vfiodp.host.VfioAvailability;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.metrics.MetricsAddress;
import io.vfiodp.metrics.MetricsServer;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.PluginListeners;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.triggers.DirectoryWatch;
import io.vfiodp.vgpu.VgpuLayoutStep;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place {@code serve} is put together, from a {@link ServeConfig}: the configuration's
 * source (the KubeVirt CR or the local file), the vGPU layout step, the pass (configuration, layout,
 * scan, policy), the device-plugin runtime, the {@code /dev/vfio} watch and the HTTP endpoints.
 * Everything started goes onto one stack and is closed in reverse order, on a failure during
 * start-up and on {@link #close()} (SIGTERM) alike.
 */
public final class ServeApp implements AutoCloseable {

    static final Duration PROBE_ANSWER_WITHIN = Duration.ofSeconds(2);
    static final String VFIO_WATCH_THREAD = "vfio-dp-vfio-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private final Closer closer;
    private final PluginRuntime runtime;
    private final Optional<MetricsServer> metricsServer;

    private ServeApp(Closer closer, PluginRuntime runtime, Optional<MetricsServer> metricsServer) {
        this.closer = closer;
        this.runtime = runtime;
        this.metricsServer = metricsServer;
    }

    /** Starts everything {@code config} asks for and returns it serving; fails, having closed what it started, when it cannot. */
    public static ServeApp start(ServeConfig config) throws IOException {
        log.info("serve: sysfs {}, dev {}, device-plugin dir {}, rescan every {}, metrics on {}; permitted devices from {}{}",
                config.sysfsRoot(), config.devRoot(), config.devicePluginDir(), config.rescanInterval(),
                config.metricsAddress().isBlank() ? "(disabled)" : config.metricsAddress(), config.localDescription(),
                config.kubeApi().isPresent() ? " unless the KubeVirt CR has permittedHostDevices (--kubevirt auto)" : "");
        // before waiting on the KubeVirt CR: a wrong mount should fail at once
        PluginRuntime.checkPluginDir(config.devicePluginDir());
        Optional<InetSocketAddress> metricsAt = MetricsAddress.parse(config.metricsAddress());
        PrometheusRegistry registry = new PrometheusRegistry();
        ServingMetrics metrics = new ServingMetrics(registry, config.version(), Clock.systemUTC());
        Closer closer = new Closer();
        try {
            ConfigWiring configs = ConfigWiring.start(config, metrics, closer);
            // closed after the runtime and layout step that scan on it (the closer goes in reverse)
            ReaderPool readers = closer.add(ReaderPool.forThisMachine());
            SysfsScanner scanner = new SysfsScanner(config.sysfsRoot(), config.devRoot(), readers);
            ScanPolicySource scanPolicy = new ScanPolicySource(scanner::scan, configs.configs(),
                    vendors -> PciIds.load(config.pciIds(), vendors), Optional.of(configs.problems()));
            Optional<VgpuLayoutStep> layout = VgpuWiring.start(config, scanner::scan, configs.client(), configs.events(), metrics, closer);
            NodePass pass = new NodePass(configs.configs(), layout, scanPolicy, metrics, System::nanoTime);

            checkVfio(config, metrics);
            PluginListener listener = configs.events().<PluginListener>map(e -> PluginListeners.of(metrics, HealthEvents.onNode(e)))
                    .orElse(metrics);
            if (configs.events().isEmpty()) {
                log.info("no Kubernetes API or node name (--kubevirt auto and --node-name / NODE_NAME): device health changes are logged,"
                        + " not posted as Node events");
            }
            PluginRuntime runtime = closer.add(PluginRuntime.start(PluginSettings.of(config.devicePluginDir(), config.rescanInterval()),
                    pass, listener));
            // the kernel creates /dev/vfio/<group> when a group's last member binds to a VFIO driver and removes it when one unbinds
            closer.add(DirectoryWatch.start(config.devRoot().resolve("vfio"), "/dev/vfio dir", VFIO_WATCH_THREAD, change -> runtime.rescanNow()));
            Optional<MetricsServer> server = Optional.empty();
            if (metricsAt.isPresent()) {
                server = Optional.of(closer.add(MetricsServer.start(metricsAt.get(), registry, metrics,
                        runtime.loop()::status, PROBE_ANSWER_WITHIN)));
            }
            configs.follower().ifPresent(f -> f.attach(runtime::rescanNow));
            return new ServeApp(closer, runtime, server);
        } catch (IOException | RuntimeException e) {
            closer.close();
            throw e;
        }
    }

    private static void checkVfio(ServeConfig config, ServingMetrics metrics) {
        VfioAvailability vfio = VfioApiCheck.check(config.devRoot());
        metrics.vfio(vfio);
        if (vfio instanceof VfioAvailability.Available) log.info("{}", vfio.describe());
        else log.warn("{}", vfio.describe());
    }

    /** The device-plugin side, for tests and benchmarks that drive it. */
    public PluginRuntime runtime() {
        return runtime;
    }

    public Optional<Integer> metricsPort() {
        return metricsServer.map(MetricsServer::port);
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        runtime.awaitClosed();
    }

    /** Stops everything, last started first. */
    @Override
    public void close() {
        closer.close();
    }
}
