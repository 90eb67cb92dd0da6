package io.vfiodp.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Options every command shares. Each is also read from {@code VFIO_DP_<OPTION>} (see
 * {@link EnvDefaultProvider}).
 */
public final class HostOptions {

    @Option(names = "--sysfs-root", defaultValue = "/sys", paramLabel = "DIR",
            description = "Directory that plays /sys (default: ${DEFAULT-VALUE}; env VFIO_DP_SYSFS_ROOT).")
    Path sysfsRoot;

    @Option(names = "--dev-root", defaultValue = "/dev", paramLabel = "DIR",
            description = "Directory that plays /dev (default: ${DEFAULT-VALUE}; env VFIO_DP_DEV_ROOT).")
    Path devRoot;

    @Option(names = "--pci-ids", paramLabel = "FILE",
            description = "pci.ids database (default: first of /usr/share/misc/pci.ids, /usr/share/hwdata/pci.ids, /usr/share/pci.ids, else the copy in the jar; env VFIO_DP_PCI_IDS).")
    Path pciIds;

    @Option(names = "--config", paramLabel = "FILE",
            description = "YAML file with a top-level permittedHostDevices: block, KubeVirt CR schema (env VFIO_DP_CONFIG).")
    Path config;

    public Path sysfsRoot() {
        return sysfsRoot;
    }

    public Path devRoot() {
        return devRoot;
    }

    public Optional<Path> pciIds() {
        return Optional.ofNullable(pciIds);
    }

    public Optional<Path> config() {
        return Optional.ofNullable(config);
    }
}
