package io.vfiodp.doctor;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code doctor} is told: the roots it reads, the files serve would read, and the kubelet's directories.
 *
 * @param pciIds an explicit pci.ids, else the usual look-up
 * @param config the {@code --config} file, else the default policy
 */
public record DoctorSettings(Path sysRoot, Path devRoot, Path procRoot, Optional<Path> pciIds, Optional<Path> config, KubeletPaths kubelet) {
    public DoctorSettings {
        Objects.requireNonNull(sysRoot, "sysRoot");
        Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(pciIds, "pciIds");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(kubelet, "kubelet");
    }

    NodeView.Roots roots() {
        return new NodeView.Roots(sysRoot, devRoot, procRoot);
    }
}
