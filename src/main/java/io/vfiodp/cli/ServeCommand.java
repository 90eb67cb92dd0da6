package io.vfiodp.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kubevirt.KubeClients;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.kubevirt.ConfigProblemReporter;
import io.vfiodp.kubevirt.DesiredMdevTypes;
import io.vfiodp.kubevirt.KubeVirtPolicyFollower;
import io.vfiodp.metrics.MetricsAddress;
import io.vfiodp.metrics.PluginMetrics;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.plugin.NodeStateSource;
import io.vfiodp.plugin.ScanPolicySource;
import io.vfiodp.policy.config.PermittedConfigSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Serve every exposed resource to the kubelet: one gRPC device-plugin server per resource on its own unix socket,",
            "registered with kubelet.sock, re-registered after kubelet restarts, rescanned periodically. Runs until SIGTERM.",
            "This is the default command: running the jar with no command, or with options only, runs serve."})
final class ServeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin HostOptions host;

    @Option(names = "--device-plugin-dir", defaultValue = "/var/lib/kubelet/device-plugins", paramLabel = "DIR",
            description = "The kubelet's device-plugin directory, holding kubelet.sock (default: ${DEFAULT-VALUE}; env VFIO_DP_DEVICE_PLUGIN_DIR).")
    Path devicePluginDir;

    @Option(names = "--kubevirt", defaultValue = "auto", paramLabel = "auto|off",
            description = "auto: follow permittedHostDevices in the KubeVirt CR (any namespace) live; it wins over --config while it has them, "
                    + "and --config or the default NVIDIA naming applies while there is no CR or it cannot be read. off: never talk to the "
                    + "Kubernetes API; --config or the default naming decides (default: ${DEFAULT-VALUE}; env VFIO_DP_KUBEVIRT).")
    KubeVirtMode kubevirt;

    @Option(names = "--node-name", paramLabel = "NAME",
            description = "This node's name: its labels select nodeMediatedDeviceTypes, and configuration problems and device health changes are posted as Events on it "
                    + "(default: env NODE_NAME, set it from the downward API spec.nodeName; env VFIO_DP_NODE_NAME).")
    String nodeName;

    @Option(names = "--rescan-interval", defaultValue = "30s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Full rescan period (e.g. 10s, 1m); a rescan that finds no change sends the kubelet nothing (default: ${DEFAULT-VALUE}; env VFIO_DP_RESCAN_INTERVAL).")
    Duration rescanInterval;

    @Mixin VgpuOptions vgpu;

    @Option(names = "--metrics-address", defaultValue = ":9402", paramLabel = "[HOST]:PORT",
            description = "Address of the HTTP /metrics, /healthz and /readyz endpoints; empty disables them (default: ${DEFAULT-VALUE}; env VFIO_DP_METRICS_ADDRESS).")
    String metricsAddress;

    /** How long start-up waits for the first reading of the KubeVirt CR before serving the local configuration. */
    private static final Duration FIRST_CR_READING_WAIT = Duration.ofSeconds(5);

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (vgpu.dryRun()) {
            return vgpu.printDryRun(host, node(), crLayout(node()), spec.commandLine().getOut(), err);
        }
        Serving serving;
        try {
            serving = start();
        } catch (IOException | RuntimeException e) {
            err.println("vfio-device-plugin serve: " + e.getMessage());
            err.flush();
            return 1;
        }
        AtomicBoolean stoppedBySignal = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            stoppedBySignal.set(true);
            serving.close();
            // The JVM would exit with 128+15 after a SIGTERM even though we shut down cleanly;
            // the kubelet's pod lifecycle and systemd read a non-zero status as a failure.
            Runtime.getRuntime().halt(0);
        }, "vfio-dp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            serving.runtime().awaitClosed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!stoppedBySignal.get()) {
            Runtime.getRuntime().removeShutdownHook(hook);
            serving.close();
        }
        return 0;
    }

    /**
     * The serving session (runtime, /dev/vfio watch, metrics endpoints), the vGPU layout manager and,
     * with {@code --kubevirt auto}, what follows the KubeVirt CR; closed in that order.
     */
    private record Serving(ServeSession session, Optional<VgpuOptions.Managed> vgpu, Optional<KubeVirtPolicyFollower> follower,
                           Optional<KubernetesClient> client) implements AutoCloseable {
        PluginRuntime runtime() {
            return session.runtime();
        }

        @Override
        public void close() {
            session.close();
            vgpu.ifPresent(VgpuOptions.Managed::close);
            follower.ifPresent(KubeVirtPolicyFollower::close);
            client.ifPresent(KubernetesClient::close);
        }
    }

    private Optional<String> node() {
        return Optional.ofNullable(nodeName).filter(n -> !n.isBlank());
    }

    /** Where the Kubernetes API is configured, with {@code --kubevirt auto}; empty otherwise. */
    private Optional<String> kubeApi() {
        return kubevirt == KubeVirtMode.auto
                ? KubeApiDetection.source(System.getenv(), Path.of(System.getProperty("user.home")))
                : Optional.empty();
    }

    /**
     * For {@code --dry-run}: the KubeVirt CR's vGPU layout for this node, read once the way serving
     * follows it; empty with {@code --kubevirt off}, without an API, or when the CR lists none.
     */
    private Optional<DesiredMdevTypes> crLayout(Optional<String> node) {
        if (kubeApi().isEmpty()) {
            return Optional.empty();
        }
        try (KubernetesClient client = KubeClients.standard()) {
            KubeVirtPolicyFollower follower = KubeVirtPolicyFollower.start(client, node, PermittedConfigSource.file(host.config()),
                    "--config", new PluginMetrics(new PrometheusRegistry()), FIRST_CR_READING_WAIT);
            try {
                return follower.mdevTypes();
            } finally {
                follower.close();
            }
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(ServeCommand.class).warn("--dry-run: cannot read the KubeVirt CR ({}); using --config only", e.getMessage());
            return Optional.empty();
        }
    }

    /** Starts everything {@code serve} runs, as its options say, and returns it serving; {@link #call} then waits for SIGTERM. */
    private Serving start() throws IOException {
        Logger log = LoggerFactory.getLogger("io.vfiodp.serve");
        log.info("serve: sysfs {}, dev {}, device-plugin dir {}, rescan every {}, metrics on {}; permitted devices from {}{}", host.sysfsRoot(),
                host.devRoot(), devicePluginDir, rescanInterval, metricsAddress.isBlank() ? "(disabled)" : metricsAddress,
                host.config().map(c -> "--config " + c).orElse("the default NVIDIA naming"),
                kubevirt == KubeVirtMode.auto ? " unless the KubeVirt CR has permittedHostDevices (--kubevirt auto)" : "");
        // before waiting on the KubeVirt CR: a wrong mount should fail at once
        PluginRuntime.checkPluginDir(devicePluginDir);
        Optional<InetSocketAddress> metricsAt = MetricsAddress.parse(metricsAddress);
        PrometheusRegistry registry = new PrometheusRegistry();
        PluginMetrics metrics = new PluginMetrics(registry);
        PermittedConfigSource local = PermittedConfigSource.file(host.config());
        String localDescription = host.config().map(p -> "--config " + p).orElse(PermittedConfigSource.Current.DEFAULT_POLICY.origin());
        Optional<String> node = node();
        Optional<KubernetesClient> client = Optional.empty();
        Optional<KubeVirtPolicyFollower> follower = Optional.empty();
        PermittedConfigSource configs = local;
        ScanPolicySource.ProblemSink problems = new ConfigProblemReporter(Optional.empty(), metrics)::report;
        Optional<String> api = kubeApi();
        if (kubevirt == KubeVirtMode.auto && api.isEmpty()) {
            LoggerFactory.getLogger(ServeCommand.class).info(
                    "--kubevirt auto: no Kubernetes API configured (not in a pod, no kubeconfig); serving {} only", localDescription);
        }
        if (api.isPresent()) {
            try {
                client = Optional.of(KubeClients.standard());
            } catch (RuntimeException e) {
                // a broken kubeconfig must not keep the GPUs from being served
                LoggerFactory.getLogger(ServeCommand.class).warn("--kubevirt auto: cannot set up a Kubernetes client ({}); serving {} only",
                        e.getMessage(), localDescription);
            }
        }
        if (client.isPresent()) {
            follower = Optional.of(KubeVirtPolicyFollower.start(client.get(), node, local, localDescription, metrics, FIRST_CR_READING_WAIT));
            configs = follower.get().configs();
            problems = follower.get().problems()::report;
        }
        ServeSession session;
        Optional<VgpuOptions.Managed> managed = Optional.empty();
        try {
            SysfsScanner scanner = new SysfsScanner(host.sysfsRoot(), host.devRoot());
            NodeStateSource source = new ScanPolicySource(scanner::scan, configs, vendors -> PciIds.load(host.pciIds(), vendors),
                    Optional.of(problems));
            if (vgpu.manage()) {
                Optional<KubeVirtPolicyFollower> f = follower;
                managed = Optional.of(vgpu.managed(host, scanner::scan, source, client, node,
                        f.flatMap(KubeVirtPolicyFollower::events), () -> f.flatMap(KubeVirtPolicyFollower::mdevTypes), metrics));
                source = managed.get().source();
            }
            session = ServeSession.start(PluginSettings.of(devicePluginDir, rescanInterval), source, host.devRoot(), metricsAt, registry,
                    follower.flatMap(KubeVirtPolicyFollower::events), new VersionProvider().getVersion()[0]);
        } catch (IOException | RuntimeException e) {
            managed.ifPresent(VgpuOptions.Managed::close);
            follower.ifPresent(KubeVirtPolicyFollower::close);
            client.ifPresent(KubernetesClient::close);
            throw e;
        }
        PluginRuntime runtime = session.runtime();
        follower.ifPresent(f -> f.attach(runtime::rescanNow));
        return new Serving(session, managed, follower, client);
    }
}
