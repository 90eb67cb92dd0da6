package io.vfiodp.dra.model;

import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.ResourceName;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One device of this node's pool: its name there, the device as the policy exposed it (health
 * included), the resource it belongs to, and the attributes its ResourceSlice entry and metadata
 * file carry (keys without a domain are the driver's own).
 */
public record DraDevice(String name, ExposedDevice device, ResourceName resource, DeviceProfile profile,
                        SortedMap<String, AttributeValue> attributes) {

    public DraDevice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(profile, "profile");
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    public boolean healthy() {
        return device.health().isHealthy();
    }
}
