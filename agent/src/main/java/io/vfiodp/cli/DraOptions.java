package io.vfiodp.cli;

import io.vfiodp.dra.DraSettings;
import io.vfiodp.serve.ServeConfig;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** {@code serve}'s DRA options: which resources, and the driver's name and directories; picocli keeps the values. */
final class DraOptions {

    private final DraRoutingOption route = new DraRoutingOption();

    private final OptionSpec driverName = OptionSpec.builder("--dra-driver-name").type(String.class).defaultValue(DraSettings.DEFAULT_DRIVER)
            .paramLabel("NAME")
            .description("The DRA driver's name, in its ResourceSlices, the DeviceClasses' selectors and CDI device kinds; a lower-case"
                    + " DNS subdomain (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_DRIVER_NAME).")
            .build();

    private final OptionSpec registryDir = OptionSpec.builder("--dra-registry-dir").type(Path.class).defaultValue("/var/lib/kubelet/plugins_registry")
            .paramLabel("DIR")
            .description("The kubelet's plugin registry directory, where the DRA driver's registration socket goes"
                    + " (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_REGISTRY_DIR).")
            .build();

    private final OptionSpec pluginDir = OptionSpec.builder("--dra-plugin-dir").type(Path.class).paramLabel("DIR")
            .description("The DRA driver's own directory: its socket, the checkpoint of prepared claims and their metadata files; mount"
                    + " it at the same path as on the host (default: /var/lib/kubelet/plugins/<driver name>; env VFIO_DP_DRA_PLUGIN_DIR).")
            .build();

    private final OptionSpec cdiDir = OptionSpec.builder("--cdi-dir").type(Path.class).defaultValue("/var/run/cdi").paramLabel("DIR")
            .description("Where container runtimes read CDI specs; the DRA driver writes one per prepared claim"
                    + " (default: ${DEFAULT-VALUE}; env VFIO_DP_CDI_DIR).")
            .build();

    /** The forms of {@code resource.kubernetes.io/numaNode}, as {@code --dra-numa-form} spells them. */
    enum NumaFormName { scalar, list }

    private final OptionSpec numaForm = OptionSpec.builder("--dra-numa-form").type(NumaFormName.class).defaultValue("scalar").paramLabel("FORM")
            .description("How the DRA driver publishes resource.kubernetes.io/numaNode: scalar, the device's NUMA node; or list (KEP-6072),"
                    + " the node first, then the same-socket nodes at the smallest ACPI SLIT distance, which needs DRAListTypeAttributes"
                    + " in the cluster. Omitted for a device without a NUMA node (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_NUMA_FORM).")
            .build();

    /** The options, to be added to serve as the mixin {@code dra}; {@code --dra-resources} as its own mixin {@code route}. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addMixin("route", route.mixin()).addOption(driverName).addOption(registryDir)
                .addOption(pluginDir).addOption(cdiDir).addOption(numaForm);
    }

    ServeConfig.Dra settings() {
        return new ServeConfig.Dra(route.routing(), driverName.getValue(), registryDir.getValue(), Optional.ofNullable(pluginDir.getValue()),
                cdiDir.getValue(), numaForm.getValue() == NumaFormName.list);
    }
}
