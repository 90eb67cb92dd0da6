package io.vfiodp.doctor;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the kubelet's directories are, as {@code serve} is told them.
 *
 * @param draEnabled whether some resource goes through DRA: then the plugin registry is needed
 */
public record KubeletPaths(Path devicePluginDir, boolean draEnabled, Path registryDir, Path cdiDir) {
    public KubeletPaths {
        Objects.requireNonNull(devicePluginDir, "devicePluginDir");
        Objects.requireNonNull(registryDir, "registryDir");
        Objects.requireNonNull(cdiDir, "cdiDir");
    }
}
