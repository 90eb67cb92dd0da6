package io.vfiodp.dra;

import io.vfiodp.policy.ResourceName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The driver's standing, for probes, metrics and logs.
 *
 * @param driver         the driver's name
 * @param serving        both sockets are served
 * @param registered     the kubelet's last registration verdict; empty before the first
 * @param resources      the devices offered through DRA, counted by resource
 * @param preparedClaims claims prepared and not yet unprepared
 * @param generation     the pool generation the API holds, as the slice publisher last saw it
 * @param sliceProblem   why the slices could not be written, when they could not
 */
public record DraStatus(String driver, boolean serving, Optional<Boolean> registered, List<Resource> resources, int preparedClaims, long generation,
                        Optional<String> sliceProblem) {

    /** A resource served through DRA: its devices, and how many of them are healthy (published in the ResourceSlices). */
    public record Resource(ResourceName name, int devices, int healthy) {
        public Resource {
            Objects.requireNonNull(name, "name");
        }
    }

    public DraStatus {
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(registered, "registered");
        resources = List.copyOf(resources);
        Objects.requireNonNull(sliceProblem, "sliceProblem");
    }

    /** Devices offered through DRA. */
    public int devices() {
        return resources.stream().mapToInt(Resource::devices).sum();
    }

    /** Of which healthy. */
    public int healthy() {
        return resources.stream().mapToInt(Resource::healthy).sum();
    }

    /** Registered with the current kubelet. */
    public boolean isRegistered() {
        return registered.orElse(false);
    }
}
