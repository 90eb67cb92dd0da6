package io.vfiodp.cli;

import io.vfiodp.kubelet.PodResourcesClient;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --pod-resources-socket}: the kubelet's PodResources socket, for serve and inventory alike.
 * Built through picocli's API: it is on serve's path (see {@link ServeCommand}).
 */
final class PodResourcesOption {

    private final OptionSpec socket = OptionSpec.builder("--pod-resources-socket").type(Path.class)
            .defaultValue(PodResourcesClient.DEFAULT_SOCKET.toString()).paramLabel("FILE")
            .description("The kubelet's PodResources socket, asked which devices pods hold: who holds each device (inventory's HOLDER,"
                    + " serve's vfio_dp_device_holder_info), before a vGPU is removed, and before a device the device plugins offered"
                    + " goes to DRA (default: ${DEFAULT-VALUE}; env VFIO_DP_POD_RESOURCES_SOCKET).")
            .build();

    /** The option, to be added to a command as a mixin. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(socket);
    }

    Path socket() {
        return socket.getValue();
    }
}
