package io.vfiodp.cli;

import io.vfiodp.kube.KubeApiDetection;
import io.vfiodp.serve.DryRun;
import io.vfiodp.serve.ServeConfig;
import io.vfiodp.serve.ServeRun;
import io.vfiodp.serve.UeventMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code serve}'s command, built through picocli's API rather than from annotations: reading
 * annotations makes the JDK generate a proxy class per annotation type (nine for serve's) and
 * reflection spin method handles, in the interpreter, before serve's first log line; the API
 * builds the top-level and serve models in a fraction of that time (docs/benchmarks.md, "Choices in the code").
 * For the same reason nothing here calls a record's {@code equals}, {@code hashCode} or {@code toString}
 * while the options are read: the first such call bootstraps {@code ObjectMethods}, interpreted (see
 * {@code DraRouting.routesAny}, and {@code ServePrestart.linkRecordMethods}, which links them off this path).
 * Each option is defined once, here or in the group it
 * belongs to ({@link HostOptions}, {@link VgpuOptions}, {@link PodResourcesOption}, {@link DraOptions}), and picocli keeps its
 * value; {@code --help}, defaults and messages are the annotated command's (UsageHelpTest).
 */
final class ServeCommand implements Callable<Integer> {

    final OptionSpec devicePluginDir = OptionSpec.builder("--device-plugin-dir").type(Path.class).defaultValue("/var/lib/kubelet/device-plugins")
            .paramLabel("DIR")
            .description("The kubelet's device-plugin directory, holding kubelet.sock (default: ${DEFAULT-VALUE}; env VFIO_DP_DEVICE_PLUGIN_DIR).")
            .build();

    final OptionSpec kubevirt = OptionSpec.builder("--kubevirt").type(KubeVirtMode.class).defaultValue("auto").paramLabel("auto|off")
            .description("auto: follow permittedHostDevices in the KubeVirt CR (any namespace) live; it wins over --config while it has them, "
                    + "and --config or the default NVIDIA naming applies while there is no CR or it cannot be read. off: never read the "
                    + "KubeVirt CR; --config or the default naming decides, and the Kubernetes API is used only for DRA (--dra-resources) "
                    + "(default: ${DEFAULT-VALUE}; env VFIO_DP_KUBEVIRT).")
            .build();

    final OptionSpec nodeName = OptionSpec.builder("--node-name").type(String.class).paramLabel("NAME")
            .description("This node's name: its labels select nodeMediatedDeviceTypes, configuration problems and device health changes are posted as Events on it, "
                    + "and it names the DRA driver's pool (required with --dra-resources) "
                    + "(default: env NODE_NAME, set it from the downward API spec.nodeName; env VFIO_DP_NODE_NAME).")
            .build();

    final OptionSpec rescanInterval = OptionSpec.builder("--rescan-interval").type(Duration.class).paramLabel("DURATION")
            .converters(new DurationConverter())
            .description("Full rescan period (e.g. 10s, 1m); a rescan that finds no change sends the kubelet nothing (default: 5m while kernel"
                    + " uevents arrive, a safety net under them; 30s without; env VFIO_DP_RESCAN_INTERVAL).")
            .build();

    final OptionSpec uevents = OptionSpec.builder("--uevents").type(UeventMode.class).defaultValue("auto").paramLabel("auto|on|off")
            .description("auto: listen to kernel uevents when --sysfs-root is a sysfs mount: a driver change, hot-add or hot-remove then"
                    + " reaches the kubelet after reading only the devices named, and the full rescan runs every 5m. Where the kernel sends"
                    + " this process none (a pod with hostUsers: false), serve says so once and rescans every 30s. on: also when"
                    + " --sysfs-root is a copy (tests). off: rescans and the /dev/vfio watch only (default: ${DEFAULT-VALUE};"
                    + " env VFIO_DP_UEVENTS).")
            .build();

    final OptionSpec metricsAddress = OptionSpec.builder("--metrics-address").type(String.class).defaultValue(":9402").paramLabel("[HOST]:PORT")
            .description("Address of the HTTP /metrics, /healthz and /readyz endpoints; empty disables them (default: ${DEFAULT-VALUE}; env VFIO_DP_METRICS_ADDRESS).")
            .build();

    final OptionSpec probeAddress = OptionSpec.builder("--probe-address").type(String.class).defaultValue("").paramLabel("[HOST]:PORT")
            .description("Serve /healthz and /readyz on this address of their own, and /metrics alone on --metrics-address: a port a"
                    + " NetworkPolicy closes to every pod (the kubelet's probes come from the node and pass), or 127.0.0.1:PORT with"
                    + " hostNetwork; empty: the probes are on --metrics-address (default: empty; env VFIO_DP_PROBE_ADDRESS).")
            .build();

    private final HostOptions host = new HostOptions();
    private final ProcRootOption proc = new ProcRootOption();
    private final VgpuOptions vgpu = new VgpuOptions();
    private final PodResourcesOption podResources = new PodResourcesOption();
    private final DraOptions dra = new DraOptions();
    private final CommandSpec spec = model();

    /** The command's model, this instance its user object; options in the order the annotated class declared them. */
    private CommandSpec model() {
        CommandSpec command = CommandSpec.wrapWithoutInspection(this).name("serve");
        command.usageMessage().description(
                // one element per paragraph: picocli wraps each to the terminal width
                "Serve every exposed resource to the kubelet: one gRPC device-plugin server per resource on its own unix socket, "
                        + "registered with kubelet.sock, re-registered after kubelet restarts, updated on kernel uevents and /dev/vfio "
                        + "changes, rescanned periodically. Runs until SIGTERM.",
                "With --dra-resources, the resources it names are served through Dynamic Resource Allocation instead: ResourceSlices, "
                        + "claims prepared into CDI devices and KubeVirt's device metadata, registered through the kubelet's plugin registry.",
                "This is the default command: running the jar with no command, or with options only, runs serve.");
        command.addMixin("host", host.mixin());
        command.addMixin("proc", proc.mixin());
        command.addOption(devicePluginDir).addOption(kubevirt).addOption(nodeName).addOption(rescanInterval).addOption(uevents);
        command.addMixin("vgpu", vgpu.mixin());
        command.addMixin("podResources", podResources.mixin());
        command.addMixin("dra", dra.mixin());
        command.addOption(metricsAddress).addOption(probeAddress);
        return StandardHelpOptions.addTo(command);
    }

    /** The model picocli parses serve's options with, into this instance. */
    CommandSpec commandSpec() {
        return spec;
    }

    @Override
    public Integer call() {
        ServeConfig config = config();
        return vgpu.dryRun() ? DryRun.print(config, spec.commandLine().getOut(), spec.commandLine().getErr())
                : ServeRun.run(config, spec.commandLine().getErr());
    }

    /** The options, parsed into what serve runs on; {@code --kubevirt auto} looks for a Kubernetes API in the environment. */
    ServeConfig config() {
        return new ServeConfig(host.sysfsRoot(), host.devRoot(), proc.procRoot(), host.pciIds(), host.config(), devicePluginDir.getValue(),
                kubevirt.getValue() == KubeVirtMode.auto, KubeApiDetection.source(System.getenv(), Path.of(System.getProperty("user.home"))),
                Optional.ofNullable(nodeName.getValue()), Optional.ofNullable(rescanInterval.getValue()), uevents.getValue(),
                metricsAddress.getValue(), probeAddress.getValue(), vgpu.settings(podResources.socket()), dra.settings(), new VersionProvider().getVersion()[0]);
    }
}
