package io.vfiodp.dra;

import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;

/**
 * What the DRA driver tells observers (metrics, Node Events). Called on the driver's thread or a
 * gRPC handler thread: implementations must return at once and never throw.
 */
public interface DraListener {

    DraListener NONE = new DraListener() {};

    /**
     * A device offered through DRA changed health (never called for devices that appear or
     * disappear); {@code deviceId} is the PCI address or mdev UUID, as the device plugins name it.
     */
    default void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {}

    /** The kubelet asked to prepare a claim and got {@code reason} instead of devices. */
    default void prepareFailed(String reason) {}

    /** This listener, then {@code next}. */
    default DraListener andThen(DraListener next) {
        DraListener first = this;
        return new DraListener() {
            @Override
            public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
                first.healthChanged(resource, deviceId, from, to);
                next.healthChanged(resource, deviceId, from, to);
            }

            @Override
            public void prepareFailed(String reason) {
                first.prepareFailed(reason);
                next.prepareFailed(reason);
            }
        };
    }
}
