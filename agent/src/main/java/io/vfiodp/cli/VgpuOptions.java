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

    /** The options, to be added to serve as the mixin {@code vgpu}. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(manage).addOption(dryRun).addOption(stateDir);
    }

    boolean dryRun() {
        return dryRun.getValue();
    }

    /** @param podResourcesSocket the kubelet's PodResources socket ({@link PodResourcesOption}) */
    ServeConfig.Vgpu settings(Path podResourcesSocket) {
        return new ServeConfig.Vgpu(manage.getValue(), stateDir.getValue(), podResourcesSocket);
    }
}
