package io.vfiodp.cli;

import io.vfiodp.host.PciIds;
import io.vfiodp.host.SysfsScanner;
import io.vfiodp.plugin.PluginRuntime;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.plugin.ScanPolicySource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
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
            description = "Read permittedHostDevices from the KubeVirt CR (auto) or not (off). This version does not read the CR yet: "
                    + "auto behaves like off, so --config or the default NVIDIA naming decides (default: ${DEFAULT-VALUE}; env VFIO_DP_KUBEVIRT).")
    KubeVirtMode kubevirt;

    @Option(names = "--rescan-interval", defaultValue = "30s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Full rescan period (e.g. 10s, 1m); a rescan that finds no change sends the kubelet nothing (default: ${DEFAULT-VALUE}; env VFIO_DP_RESCAN_INTERVAL).")
    Duration rescanInterval;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        // Not a static field: picocli instantiates every command at start, and demo sets the log level before slf4j starts.
        Logger log = LoggerFactory.getLogger("io.vfiodp.serve");
        log.info("serve: sysfs {}, dev {}, device-plugin dir {}, rescan every {}; permitted devices from {}{}", host.sysfsRoot(),
                host.devRoot(), devicePluginDir, rescanInterval, host.config().map(c -> "--config " + c).orElse("the default NVIDIA naming"),
                kubevirt == KubeVirtMode.auto ? " (--kubevirt auto: this version does not read the KubeVirt CR)" : "");
        PluginRuntime runtime;
        try {
            ScanPolicySource source = new ScanPolicySource(new SysfsScanner(host.sysfsRoot(), host.devRoot())::scan, host.config(),
                    () -> PciIds.load(host.pciIds()));
            runtime = PluginRuntime.start(PluginSettings.of(devicePluginDir, rescanInterval), source);
        } catch (IOException | RuntimeException e) {
            err.println("vfio-device-plugin serve: " + e.getMessage());
            err.flush();
            return 1;
        }
        AtomicBoolean stoppedBySignal = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            stoppedBySignal.set(true);
            runtime.close();
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
            runtime.close();
        }
        return 0;
    }
}
