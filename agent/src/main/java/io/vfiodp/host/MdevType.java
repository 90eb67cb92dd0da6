package io.vfiodp.host;

import java.util.Optional;

/**
 * A mediated device type a parent offers ({@code mdev_supported_types/<id>}).
 *
 * @param id                 directory name, e.g. {@code nvidia-222}
 * @param name               the {@code name} file ({@code GRID T4-1Q}), when present
 * @param availableInstances {@code available_instances}
 * @param deviceApi          {@code device_api}, e.g. {@code vfio-pci}
 */
public record MdevType(String id, Optional<String> name, int availableInstances, String deviceApi, Optional<String> description) {

    /** The name KubeVirt matches on: the {@code name} file, falling back to the type id. */
    public String displayName() {
        return name.orElse(id);
    }
}
