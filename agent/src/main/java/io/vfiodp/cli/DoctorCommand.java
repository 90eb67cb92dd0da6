package io.vfiodp.cli;

import io.vfiodp.doctor.DoctorRun;
import io.vfiodp.doctor.DoctorSettings;
import io.vfiodp.doctor.KubeletPaths;
import io.vfiodp.doctor.VfioProbe;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "doctor",
        mixinStandardHelpOptions = true,
        description = {
            "Tells whether this node can pass devices through, and exactly what to change: one line per check, ok, warn or fail,"
                    + " with its fix.",
            "Checks the machine (bare metal or a virtual machine) and its kernel (VFIO built in, a module or absent; module support),"
                    + " the IOMMU (on, kernel command line, interrupt remapping), VFIO (modules, /dev/vfio/vfio's ioctls, iommufd, unsafe"
                    + " interrupts), every NVIDIA GPU and NVSwitch and every device the configuration selects (driver with the commands"
                    + " that move it to vfio-pci, IOMMU group, companions, NUMA node, reset, vGPU), the kubelet's directories and the"
                    + " KubeVirt CR. Changes nothing on the host."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ready: every check is ok",
            "1:ready, with warnings",
            "2:not ready: a check fails",
            "64:invalid command line"
        })
public final class DoctorCommand implements Callable<Integer> {

    /** Not picocli's 2, which here means "not ready". */
    static final int INVALID_COMMAND_LINE = 64;

    final HostOptions host = new HostOptions();
    final ProcRootOption proc = new ProcRootOption();
    final DraRoutingOption dra = new DraRoutingOption();

    @Option(names = "--device-plugin-dir", paramLabel = "DIR", defaultValue = "/var/lib/kubelet/device-plugins",
            description = "The kubelet's device-plugin directory, holding kubelet.sock (default: ${DEFAULT-VALUE}; env VFIO_DP_DEVICE_PLUGIN_DIR).")
    Path devicePluginDir;

    @Option(names = "--dra-registry-dir", paramLabel = "DIR", defaultValue = "/var/lib/kubelet/plugins_registry",
            description = "The kubelet's plugin registry directory, needed with --dra-resources (default: ${DEFAULT-VALUE};"
                    + " env VFIO_DP_DRA_REGISTRY_DIR).")
    Path registryDir;

    @Option(names = "--cdi-dir", paramLabel = "DIR", defaultValue = "/var/run/cdi",
            description = "Where container runtimes read CDI specs, needed with --dra-resources (default: ${DEFAULT-VALUE}; env VFIO_DP_CDI_DIR).")
    Path cdiDir;

    @Option(names = "--kubevirt", paramLabel = "auto|off", defaultValue = "auto",
            description = "auto: read the KubeVirt CR once when a Kubernetes API is configured (in-cluster, KUBECONFIG, ~/.kube/config);"
                    + " its permittedHostDevices win over --config, as in serve. off: never ask the API (default: ${DEFAULT-VALUE};"
                    + " env VFIO_DP_KUBEVIRT).")
    KubeVirtMode kubevirt;

    @Option(names = "--boot-root", paramLabel = "DIR", defaultValue = "/boot",
            description = "Directory that plays /boot, for the kernel's configuration (config-<release>) where /proc/config.gz is not"
                    + " there (default: ${DEFAULT-VALUE}; env VFIO_DP_BOOT_ROOT).")
    Path bootRoot;

    @Option(names = "--json", description = "Print a stable JSON document instead of the lines.")
    boolean json;

    @Spec
    CommandSpec spec;

    /** The command's model: its annotations, and the mixins it shares with serve and inventory, built through picocli's API. */
    CommandSpec commandSpec() {
        return CommandSpec.forAnnotatedObject(this).addMixin("host", host.mixin()).addMixin("proc", proc.mixin())
                .addMixin("dra", dra.mixin()).exitCodeOnInvalidInput(INVALID_COMMAND_LINE);
    }

    @Override
    public Integer call() {
        DoctorSettings settings = new DoctorSettings(host.sysfsRoot(), host.devRoot(), proc.procRoot(), Optional.of(bootRoot), host.pciIds(),
                host.config(),
                new KubeletPaths(devicePluginDir, dra.routing().routesAny(), registryDir, cdiDir));
        Path home = Path.of(System.getProperty("user.home"));
        return DoctorRun.run(settings, VfioProbe.ioctls(),
                () -> kubevirt == KubeVirtMode.auto ? Optional.of(KubeVirtCrReading.fromEnvironment(System.getenv(), home)) : Optional.empty(),
                json, spec.commandLine().getOut());
    }
}
