package io.vfiodp.policy;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** A resource the plugin should serve: a valid name, one device kind, its devices in ID order. */
public record DesiredResource(ResourceName name, DeviceKind kind, List<ExposedDevice> devices) {

    public DesiredResource {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        devices = List.copyOf(devices);
        Set<String> ids = new HashSet<>();
        for (ExposedDevice d : devices) {
            if (d.kind() != kind) {
                throw new IllegalArgumentException("resource " + name + " is " + kind + " but device " + d.id() + " is " + d.kind()
                        + ": KubeVirt reads one env var prefix per resource");
            }
            if (!ids.add(d.id())) throw new IllegalArgumentException("resource " + name + " lists device " + d.id() + " twice");
        }
    }
}
