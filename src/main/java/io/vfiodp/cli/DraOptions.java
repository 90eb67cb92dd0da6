package io.vfiodp.cli;

import io.vfiodp.dra.DraSettings;
import io.vfiodp.serve.ServeConfig;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code serve}'s DRA options: which resources, and the driver's name and directories. */
final class DraOptions {

    @Mixin DraRoutingOption route;

    @Option(names = "--dra-driver-name", defaultValue = DraSettings.DEFAULT_DRIVER, paramLabel = "NAME",
            description = "The DRA driver's name, in its ResourceSlices, the DeviceClasses' selectors and CDI device kinds; a lower-case"
                    + " DNS subdomain (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_DRIVER_NAME).")
    String driverName;

    @Option(names = "--dra-registry-dir", defaultValue = "/var/lib/kubelet/plugins_registry", paramLabel = "DIR",
            description = "The kubelet's plugin registry directory, where the DRA driver's registration socket goes"
                    + " (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_REGISTRY_DIR).")
    Path registryDir;

    @Option(names = "--dra-plugin-dir", paramLabel = "DIR",
            description = "The DRA driver's own directory: its socket, the checkpoint of prepared claims and their metadata files; mount"
                    + " it at the same path as on the host (default: /var/lib/kubelet/plugins/<driver name>; env VFIO_DP_DRA_PLUGIN_DIR).")
    Path pluginDir;

    @Option(names = "--cdi-dir", defaultValue = "/var/run/cdi", paramLabel = "DIR",
            description = "Where container runtimes read CDI specs; the DRA driver writes one per prepared claim"
                    + " (default: ${DEFAULT-VALUE}; env VFIO_DP_CDI_DIR).")
    Path cdiDir;

    ServeConfig.Dra settings() {
        return new ServeConfig.Dra(route.routing, driverName, registryDir, Optional.ofNullable(pluginDir), cdiDir);
    }
}
