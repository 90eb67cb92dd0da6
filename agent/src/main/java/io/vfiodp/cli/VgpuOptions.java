package io.vfiodp.cli;

import io.vfiodp.serve.ServeConfig;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** {@code serve}'s vGPU layout options ({@code --manage-vgpus} and friends); picocli keeps the values. */
final class VgpuOptions {

    private final OptionSpec manage = OptionSpec.builder("--manage-vgpus").type(boolean.class).initialValue(false)
            .description("Create and remove vGPUs (mdev instances, SR-IOV vGPU types) to match the mediatedDevicesConfiguration of --config; "
                    + "needs write access to /sys (env VFIO_DP_MANAGE_VGPUS).")
            .build();

    private final OptionSpec dryRun = OptionSpec.builder("--dry-run").type(boolean.class).initialValue(false)
            .description("Print the vGPU layout, desired versus actual per GPU, and the sysfs writes --manage-vgpus would make, then exit; changes nothing.")
            .build();

    private final OptionSpec stateDir = OptionSpec.builder("--state-dir").type(Path.class).defaultValue("/var/lib/vfio-device-plugin").paramLabel("DIR")
            .description("Where the record of the vGPUs this plugin created is kept; must survive restarts (default: ${DEFAULT-VALUE}; env VFIO_DP_STATE_DIR).")
            .build();

    private final OptionSpec podResourcesSocket = OptionSpec.builder("--pod-resources-socket").type(Path.class)
            .defaultValue("/var/lib/kubelet/pod-resources/kubelet.sock").paramLabel("FILE")
            .description("The kubelet's PodResources socket, asked which devices pods hold: before a vGPU is removed, and before a device"
                    + " the device plugins offered goes to DRA (default: ${DEFAULT-VALUE}; env VFIO_DP_POD_RESOURCES_SOCKET).")
            .build();

    /** The options, to be added to serve as the mixin {@code vgpu}. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(manage).addOption(dryRun).addOption(stateDir).addOption(podResourcesSocket);
    }

    boolean dryRun() {
        return dryRun.getValue();
    }

    ServeConfig.Vgpu settings() {
        return new ServeConfig.Vgpu(manage.getValue(), stateDir.getValue(), podResourcesSocket.getValue());
    }
}
