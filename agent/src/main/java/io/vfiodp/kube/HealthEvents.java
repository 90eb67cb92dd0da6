package io.vfiodp.kube;

import io.vfiodp.dra.DraListener;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;

/**
 * Turns device health transitions into Events on the Node, so {@code kubectl describe node}
 * tells why a GPU stopped being allocatable: those of the device plugins and those of the DRA
 * driver alike (a resource is served one way only, so its name says which). The sink must not
 * block (the reconcile and DRA threads call this); {@code NodeEventRecorder} queues, rate-limits
 * and drops instead.
 */
public final class HealthEvents implements PluginListener, DraListener {

    static final String UNHEALTHY = "VfioDeviceUnhealthy";
    static final String HEALTHY = "VfioDeviceHealthy";

    /** Where events go: a Warning or a Normal event with a reason and a message. */
    public interface Sink {
        void warn(String reason, String message);

        void normal(String reason, String message);
    }

    private final Sink sink;

    public HealthEvents(Sink sink) {
        this.sink = sink;
    }

    /** Events on the node {@code recorder} posts to. */
    public static HealthEvents onNode(NodeEventRecorder recorder) {
        return new HealthEvents(new Sink() {
            @Override public void warn(String reason, String message) { recorder.warn(reason, message); }
            @Override public void normal(String reason, String message) { recorder.normal(reason, message); }
        });
    }

    @Override
    public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
        if (to instanceof Health.Unhealthy(String reason)) {
            sink.warn(UNHEALTHY, resource.value() + " device " + deviceId + " is Unhealthy: " + reason);
        } else {
            sink.normal(HEALTHY, resource.value() + " device " + deviceId + " is Healthy again");
        }
    }
}
