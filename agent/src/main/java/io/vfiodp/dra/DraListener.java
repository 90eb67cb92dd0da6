package io.vfiodp.dra;

import io.vfiodp.dra.classes.ClassVerdict;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.SortedMap;

/**
 * What the DRA driver tells observers (metrics, Node Events). Called on the driver's thread, its
 * API thread or a gRPC handler thread: implementations must return at once and never throw.
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

    /** The kubelet's prepare or unprepare call was answered: what pods hold may have changed. */
    default void claimsAnswered() {}

    /**
     * The DeviceClasses of the resources routed to DRA, as the API held them before and holds them
     * now ({@link ClassVerdict}, by resource); told whenever one changed.
     */
    default void deviceClasses(SortedMap<ResourceName, ClassVerdict> before, SortedMap<ResourceName, ClassVerdict> now) {}

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

            @Override
            public void claimsAnswered() {
                first.claimsAnswered();
                next.claimsAnswered();
            }

            @Override
            public void deviceClasses(SortedMap<ResourceName, ClassVerdict> before, SortedMap<ResourceName, ClassVerdict> now) {
                first.deviceClasses(before, now);
                next.deviceClasses(before, now);
            }
        };
    }
}
