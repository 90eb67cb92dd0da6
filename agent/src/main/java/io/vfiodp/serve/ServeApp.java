package io.vfiodp.serve;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.doctor.DoctorSettings;
import io.vfiodp.doctor.KubeletPaths;
import io.vfiodp.doctor.PassthroughWatch;
import io.vfiodp.dra.DraDriver;
import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.handover.HandoverGate;
import io.vfiodp.handover.HandoverRecordFile;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.ReaderPool;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.host.vfio.VfioApiProbe;
import io.vfiodp.host.vfio.VfioAvailability;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.holders.HolderView;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.kube.KubeClients;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.metrics.MetricsAddress;
import io.vfiodp.metrics.MetricsServer;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.HostScans;
import io.vfiodp.node.NodeLoop;
import io.vfiodp.node.NodeSide;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.PluginListeners;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.triggers.DirectoryWatches;
import io.vfiodp.vgpu.VgpuLayoutPhase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place {@code serve} is put together, from a {@link ServeConfig}: the configuration's
 * source (the KubeVirt CR or the local file), the vGPU layout step, the DRA driver, the pass
 * (configuration, layout, scan, policy), the device-plugin runtime, the node loop that hands both
 * sides every pass's state and its triggers (kernel uevents, the {@code /dev/vfio} watch, the
 * periodic full rescan), who holds which device ({@link HoldersWiring}) and the HTTP endpoints.
 * Everything started goes onto one stack and is closed in reverse order, on a failure during
 * start-up and on {@link #close()} (SIGTERM) alike.
 */
public final class ServeApp implements AutoCloseable {

    static final Duration PROBE_ANSWER_WITHIN = Duration.ofSeconds(2);
    /** The one thread of every directory watch: the device-plugin dir, {@code /dev/vfio}, DRA's directories. */
    static final String DIR_WATCH_THREAD = "vfio-dp-dir-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private final Closer closer;
    private final NodeLoop node;
    private final Optional<MetricsServer> metricsServer;
    private final Optional<MetricsServer> probeServer;
    private final HostScans scans;
    private final HoldersWiring holders;

    private ServeApp(Closer closer, NodeLoop node, Optional<MetricsServer> metricsServer, Optional<MetricsServer> probeServer,
                     HostScans scans, HoldersWiring holders) {
        this.closer = closer;
        this.node = node;
        this.metricsServer = metricsServer;
        this.probeServer = probeServer;
        this.scans = scans;
        this.holders = holders;
    }

    /** Starts everything {@code config} asks for and returns it serving; fails, having closed what it started, when it cannot. */
    public static ServeApp start(ServeConfig config) throws IOException {
        return start(config, UeventSocket::open);
    }

    /** As {@link #start(ServeConfig)}, with uevents from {@code uevents} (a fake kernel's, in tests). */
    static ServeApp start(ServeConfig config, UeventWiring.Opener uevents) throws IOException {
        return start(config, uevents, KubeClients::standard);
    }

    /** As {@link #start(ServeConfig, UeventWiring.Opener)}, the Kubernetes client made by {@code clients} (a mock API server's, in tests). */
    static ServeApp start(ServeConfig config, UeventWiring.Opener uevents, Supplier<KubernetesClient> clients) throws IOException {
        log.info("serve: sysfs {}, dev {}, device-plugin dir {}, uevents {}, metrics on {}{}; permitted devices from {}{}",
                config.sysfsRoot(), config.devRoot(), config.devicePluginDir(), config.uevents(),
                config.metricsAddress().isBlank() ? "(disabled)" : config.metricsAddress(),
                config.probeAddress().isBlank() ? "" : ", probes on " + config.probeAddress(), config.localDescription(),
                config.followKubeVirt() && config.kubeApi().isPresent() ? " unless the KubeVirt CR has permittedHostDevices (--kubevirt auto)" : "");
        // before waiting on the KubeVirt CR: a wrong mount should fail at once
        PluginRuntime.checkPluginDir(config.devicePluginDir());
        Optional<InetSocketAddress> metricsAt = MetricsAddress.parse(config.metricsAddress());
        Optional<InetSocketAddress> probesAt = MetricsAddress.parse("probe address", config.probeAddress());
        PrometheusRegistry registry = new PrometheusRegistry();
        ServingMetrics metrics = new ServingMetrics(registry, config.version(), Clock.systemUTC());
        Closer closer = new Closer();
        try {
            // a DRA driver that ran here runs on with nothing routed to it: for its slices and the claims it prepared
            boolean apiWanted = config.usesApi() || DraWiring.runsAnyway(config);
            ConfigWiring configs = ConfigWiring.start(config, metrics, closer, clients, apiWanted);
            // closed after every part that watches on it (the closer goes in reverse)
            DirectoryWatches watches = closer.add(DirectoryWatches.start(DIR_WATCH_THREAD));
            // closed after the runtime and layout step that scan on it (the closer goes in reverse)
            ReaderPool readers = closer.add(ReaderPool.forThisMachine());
            SysfsScanner scanner = new SysfsScanner(config.sysfsRoot(), config.devRoot(), readers);
            HostScans scans = new HostScans(scanner);
            PassthroughWatch doctor = new PassthroughWatch(doctorSettings(config), checkVfio(config, metrics), metrics::passthrough);
            ScanPolicySource scanPolicy = new ScanPolicySource(scans, configs.configs(), vendors -> PciIds.load(config.pciIds(), vendors),
                    Optional.of(configs.problems()), config.dra().routing(), doctor::passed);
            // one client for every part that asks the kubelet what pods hold; its thread starts at the first question
            PodResourcesClient podResources = closer.add(new PodResourcesClient(config.vgpu().podResourcesSocket(),
                    VgpuWiring.POD_RESOURCES_TIMEOUT));
            Supplier<PodResourcesReading> pods = podResources::read;
            HoldersWiring holders = HoldersWiring.start(config, podResources, configs.client(), configs.events(), registry, closer);
            Optional<VgpuLayoutPhase> layout = VgpuWiring.start(config, scanner::scan, configs.client(), configs.events(), metrics,
                    Optional.of(podResources));
            DraWiring.Started draStarted = DraWiring.start(config, configs.client(), configs.events(), metrics, holders.draListener(), watches,
                    closer, pods);
            Optional<DraDriver> dra = draStarted.driver();
            HandoverGate handover = new HandoverGate(new HandoverRecordFile(config.devicePluginDir()), pods, draStarted.held(),
                    config.dra().driverName(), config.nodeName().orElse(""), DeviceNames::of, HandoverGate.TAKE_IN_WAIT);
            NodePass pass = new NodePass(configs.configs(), layout, scanPolicy, Optional.of(scans), metrics, System::nanoTime,
                    Optional.of(handover), holders::offered);
            // before the first scan: a change between that scan and the socket would be missed
            UeventWiring kernelEvents = UeventWiring.open(config, scans, uevents, closer);

            PluginListener listener = configs.events().<PluginListener>map(e -> PluginListeners.of(metrics, HealthEvents.onNode(e),
                    holders.pluginListener())).orElse(PluginListeners.of(metrics, holders.pluginListener()));
            if (configs.events().isEmpty()) {
                log.info("device health changes are logged, not posted as Node events: {}",
                        ConfigWiring.withoutEvents(config, apiWanted, configs.client().isPresent()));
            }
            PluginRuntime.Starting plugins = closer.add(PluginRuntime.begin(PluginSettings.of(config.devicePluginDir())));
            // the DRA driver first: the pass waits for it to take each state in before the device plugins get it
            NodeLoop node = closer.add(NodeLoop.start(pass, () -> {
                List<NodeSide> sides = new ArrayList<>();
                dra.ifPresent(d -> sides.add(handover.dra(d)));
                sides.add(handover.plugins(plugins.serve(listener, watches)));
                return sides;
            }, kernelEvents.rescanPeriod()));
            PluginRuntime runtime = plugins.runtime();
            // the first pass's state is with the reconcile loop and the DRA driver, which register on threads of their own
            node.onPassThread(doctor::tellFirstPass);
            kernelEvents.listen(node, closer);
            // the kernel creates /dev/vfio/<group> when a group's last member binds to a VFIO driver and removes it when one unbinds
            closer.add(watches.watch(config.devRoot().resolve("vfio"), "/dev/vfio dir", change -> node.rescanNow()));
            Optional<MetricsServer> server = Optional.empty();
            if (metricsAt.isPresent()) {
                MetricsServer.Endpoints endpoints = probesAt.isPresent() ? MetricsServer.Endpoints.METRICS : MetricsServer.Endpoints.ALL;
                server = Optional.of(closer.add(serveHttp(metricsAt.get(), endpoints, registry, metrics, runtime, dra, doctor)));
            }
            Optional<MetricsServer> probes = Optional.empty();
            if (probesAt.isPresent()) {
                probes = Optional.of(closer.add(serveHttp(probesAt.get(), MetricsServer.Endpoints.PROBES, registry, metrics, runtime, dra, doctor)));
            }
            configs.follower().ifPresent(f -> f.attach(node::rescanNow));
            return new ServeApp(closer, node, server, probes, scans, holders);
        } catch (IOException | RuntimeException e) {
            closer.close();
            throw e;
        }
    }

    private static MetricsServer serveHttp(InetSocketAddress at, MetricsServer.Endpoints endpoints, PrometheusRegistry registry,
                                           ServingMetrics metrics, PluginRuntime runtime, Optional<DraDriver> dra, PassthroughWatch doctor)
            throws IOException {
        return MetricsServer.start(at, endpoints, registry, metrics, runtime.loop()::status, dra.map(d -> d::status),
                doctor::nothingToPassThrough, PROBE_ANSWER_WITHIN);
    }

    private static VfioAvailability checkVfio(ServeConfig config, ServingMetrics metrics) {
        VfioAvailability vfio = VfioApiProbe.probe(config.devRoot());
        metrics.vfio(vfio);
        if (vfio instanceof VfioAvailability.Available) log.info("{}", vfio.describe());
        else log.warn("{}", vfio.describe());
        return vfio;
    }

    /** What doctor reads inside serve: serve's own roots and directories. */
    static DoctorSettings doctorSettings(ServeConfig config) {
        return new DoctorSettings(config.sysfsRoot(), config.devRoot(), config.procRoot(), Optional.empty(), config.pciIds(), config.config(),
                new KubeletPaths(config.devicePluginDir(), config.dra().enabled(), config.dra().registryDir(), config.dra().cdiDir()));
    }

    /** The node loop, for tests that ask for a pass. */
    NodeLoop node() {
        return node;
    }

    /** The passes' scans: full or incremental, and whether uevents are tracked. */
    HostScans scans() {
        return scans;
    }

    /** Who holds which device, as last read. */
    HolderView holders() {
        return holders.tracker().view();
    }

    public Optional<Integer> metricsPort() {
        return metricsServer.map(MetricsServer::port);
    }

    /** The port of the probes' own server ({@code --probe-address}). */
    Optional<Integer> probePort() {
        return probeServer.map(MetricsServer::port);
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        node.awaitClosed();
    }

    /** Stops everything, last started first. */
    @Override
    public void close() {
        closer.close();
    }
}
