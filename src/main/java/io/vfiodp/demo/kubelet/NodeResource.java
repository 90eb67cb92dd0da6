package io.vfiodp.demo.kubelet;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One extended resource as the kubelet puts it in the Node's status, with the devices behind it.
 *
 * @param healthy   the devices it may allocate
 * @param unhealthy the devices it counts but does not allocate
 * @param stoppedAt when the plugin's stream ended, while the kubelet keeps the resource for its
 *                  grace; empty while a plugin serves it
 */
public record NodeResource(Set<String> healthy, Set<String> unhealthy, Optional<Instant> stoppedAt) {

    public NodeResource {
        healthy = Set.copyOf(healthy);
        unhealthy = Set.copyOf(unhealthy);
        Objects.requireNonNull(stoppedAt, "stoppedAt");
    }

    /** {@code status.capacity}: every device, Healthy or not. */
    public int capacity() {
        return healthy.size() + unhealthy.size();
    }

    /** {@code status.allocatable}: the Healthy devices. */
    public int allocatable() {
        return healthy.size();
    }
}
