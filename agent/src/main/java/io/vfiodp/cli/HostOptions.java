package io.vfiodp.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Options every command shares. Each is also read from {@code VFIO_DP_<OPTION>} (see
 * {@link EnvDefaultProvider}). Built through picocli's API, not annotations: they are on serve's
 * path, where reading annotations cost start-up (see {@link ServeCommand}); picocli keeps the values.
 */
public final class HostOptions {

    private final OptionSpec sysfsRoot = OptionSpec.builder("--sysfs-root").type(Path.class).defaultValue("/sys").paramLabel("DIR")
            .description("Directory that plays /sys (default: ${DEFAULT-VALUE}; env VFIO_DP_SYSFS_ROOT).").build();

    private final OptionSpec devRoot = OptionSpec.builder("--dev-root").type(Path.class).defaultValue("/dev").paramLabel("DIR")
            .description("Directory that plays /dev (default: ${DEFAULT-VALUE}; env VFIO_DP_DEV_ROOT).").build();

    private final OptionSpec pciIds = OptionSpec.builder("--pci-ids").type(Path.class).paramLabel("FILE")
            .description("pci.ids database (default: first of /usr/share/misc/pci.ids, /usr/share/hwdata/pci.ids, /usr/share/pci.ids, else the copy in the jar; env VFIO_DP_PCI_IDS).")
            .build();

    private final OptionSpec config = OptionSpec.builder("--config").type(Path.class).paramLabel("FILE")
            .description("YAML file with a top-level permittedHostDevices: block, KubeVirt CR schema (env VFIO_DP_CONFIG).").build();

    /** The options, to be added to a command as the mixin {@code host}. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(sysfsRoot).addOption(devRoot).addOption(pciIds).addOption(config);
    }

    public Path sysfsRoot() {
        return sysfsRoot.getValue();
    }

    public Path devRoot() {
        return devRoot.getValue();
    }

    public Optional<Path> pciIds() {
        return Optional.ofNullable(pciIds.getValue());
    }

    public Optional<Path> config() {
        return Optional.ofNullable(config.getValue());
    }
}
