package io.vfiodp.cli;

import io.vfiodp.serve.ServeConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code serve}'s vGPU layout options ({@code --manage-vgpus} and friends). */
final class VgpuOptions {

    @Option(names = "--manage-vgpus",
            description = "Create and remove vGPUs (mdev instances, SR-IOV vGPU types) to match the mediatedDevicesConfiguration of --config; "
                    + "needs write access to /sys (env VFIO_DP_MANAGE_VGPUS).")
    boolean manage;

    @Option(names = "--dry-run",
            description = "Print the vGPU layout, desired versus actual per GPU, and the sysfs writes --manage-vgpus would make, then exit; changes nothing.")
    boolean dryRun;

    @Option(names = "--state-dir", defaultValue = "/var/lib/vfio-device-plugin", paramLabel = "DIR",
            description = "Where the record of the vGPUs this plugin created is kept; must survive restarts (default: ${DEFAULT-VALUE}; env VFIO_DP_STATE_DIR).")
    Path stateDir;

    @Option(names = "--pod-resources-socket", defaultValue = "/var/lib/kubelet/pod-resources/kubelet.sock", paramLabel = "FILE",
            description = "The kubelet's PodResources socket, asked which vGPUs are in use before any is removed (default: ${DEFAULT-VALUE}; env VFIO_DP_POD_RESOURCES_SOCKET).")
    Path podResourcesSocket;

    ServeConfig.Vgpu settings() {
        return new ServeConfig.Vgpu(manage, stateDir, podResourcesSocket);
    }
}
