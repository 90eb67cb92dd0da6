package io.vfiodp.doctor;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code doctor} is told: the roots it reads, the files serve would read, and the kubelet's directories.
 *
 * @param bootRoot the tree that plays {@code /boot}, for {@code config-<release>} where {@code /proc/config.gz}
 *                 is not there; empty where it should not be looked at (serve, whose pod has no {@code /boot})
 * @param pciIds   an explicit pci.ids, else the usual look-up
 * @param config   the {@code --config} file, else the default policy
 */
public record DoctorSettings(Path sysRoot, Path devRoot, Path procRoot, Optional<Path> bootRoot, Optional<Path> pciIds, Optional<Path> config,
                             KubeletPaths kubelet) {
    public DoctorSettings {
        Objects.requireNonNull(sysRoot, "sysRoot");
        Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(bootRoot, "bootRoot");
        Objects.requireNonNull(pciIds, "pciIds");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(kubelet, "kubelet");
    }

    NodeView.Roots roots() {
        return new NodeView.Roots(sysRoot, devRoot, procRoot);
    }
}
