package io.vfiodp.cli;

import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.plugin.ScanPolicySource;
import java.io.IOException;
import java.io.PrintWriter;
import io.vfiodp.metrics.MetricsAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
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
            description = "Read permittedHostDevices from the KubeVirt CR (auto) or not (off). This version does not read the CR yet: "
                    + "auto behaves like off, so --config or the default NVIDIA naming decides (default: ${DEFAULT-VALUE}; env VFIO_DP_KUBEVIRT).")
    KubeVirtMode kubevirt;

    @Option(names = "--rescan-interval", defaultValue = "30s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Full rescan period (e.g. 10s, 1m); a rescan that finds no change sends the kubelet nothing (default: ${DEFAULT-VALUE}; env VFIO_DP_RESCAN_INTERVAL).")
    Duration rescanInterval;

    @Option(names = "--metrics-address", defaultValue = ":9402", paramLabel = "[HOST]:PORT",
            description = "Address of the HTTP /metrics, /healthz and /readyz endpoints; empty disables them (default: ${DEFAULT-VALUE}; env VFIO_DP_METRICS_ADDRESS).")
    String metricsAddress;

    @Option(names = "--node-name", paramLabel = "NAME",
            description = "This node's name, for Events on the Node about device health (default: env NODE_NAME; env VFIO_DP_NODE_NAME). Without it no events are posted.")
    String nodeName;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        ServeSession session;
        try {
            Optional<InetSocketAddress> metricsAt = MetricsAddress.parse(metricsAddress);
            ScanPolicySource source = new ScanPolicySource(new SysfsScanner(host.sysfsRoot(), host.devRoot())::scan, host.config(),
                    PciIds.load(host.pciIds()));
            String node = nodeName != null ? nodeName : System.getenv("NODE_NAME");
            session = ServeSession.start(PluginSettings.of(devicePluginDir, rescanInterval), source, host.devRoot(), metricsAt,
                    Optional.ofNullable(node).filter(n -> !n.isBlank()), new VersionProvider().getVersion()[0]);
        } catch (IOException | RuntimeException e) {
            err.println("vfio-device-plugin serve: " + e.getMessage());
            err.flush();
            return 1;
        }
        PluginRuntime runtime = session.runtime();
        AtomicBoolean stoppedBySignal = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            stoppedBySignal.set(true);
            session.close();
            // The JVM would exit with 128+15 after a SIGTERM even though we shut down cleanly;
            // the kubelet's pod lifecycle and systemd read a non-zero status as a failure.
            Runtime.getRuntime().halt(0);
        }, "vfio-dp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            runtime.awaitClosed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!stoppedBySignal.get()) {
            Runtime.getRuntime().removeShutdownHook(hook);
            session.close();
        }
        return 0;
    }
}
