package io.vfiodp.policy.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where each policy pass takes its permitted-devices configuration from: the {@code --config}
 * file, the KubeVirt CR, or nothing (the default policy).
 */
@FunctionalInterface
public interface PermittedConfigSource {

    /**
     * The configuration for one pass.
     *
     * @param origin    how the operator knows this configuration: {@code --config /etc/x.yaml},
     *                  {@code KubeVirt CR kubevirt/kubevirt} or {@code default policy}
     * @param permitted empty for the default policy
     * @param warnings  about the source itself (unknown fields in a file)
     */
    record Current(String origin, Optional<PermittedHostDevices> permitted, List<String> warnings) {

        public static final Current DEFAULT_POLICY = new Current("default policy", Optional.empty(), List.of());

        public Current {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(permitted, "permitted");
            warnings = List.copyOf(warnings);
        }
    }

    /** The configuration now; throws {@link IllegalStateException} naming the file when it cannot be used. */
    Current current();

    /** The {@code --config} file, read again on every call (an edited ConfigMap counts from the next pass), or the default policy. */
    static PermittedConfigSource file(Optional<Path> config) {
        if (config.isEmpty()) return () -> Current.DEFAULT_POLICY;
        Path file = config.get();
        return () -> {
            try {
                ConfigFile.Loaded loaded = ConfigFile.read(file);
                return new Current("--config " + file, Optional.of(loaded.permittedHostDevices()), loaded.warnings());
            } catch (InvalidConfigException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        };
    }
}
