package io.vfiodp.plugin;

import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;

/**
 * What the serving side tells observers (metrics, node events). Called on the reconcile thread
 * or a gRPC transport thread: implementations must return at once and never throw.
 */
public interface PluginListener {

    PluginListener NONE = new PluginListener() {};

    /** {@code Allocate} granted {@code devices} devices across all containers of one request. */
    default void allocated(ResourceName resource, int devices) {}

    /** {@code Allocate} refused (unknown or unhealthy device, bad request). */
    default void allocationRefused(ResourceName resource) {}

    /** The kubelet accepted a registration; {@code again} when this resource had been registered before. */
    default void registered(ResourceName resource, boolean again) {}

    /** A served device changed health (never called for devices that appear or disappear). */
    default void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {}

    /** A reconcile pass (servers started or stopped, updates sent, registrations made) took {@code seconds}. */
    default void reconciled(double seconds) {}
}
