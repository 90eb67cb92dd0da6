package io.vfiodp.kube;

import io.vfiodp.dra.DraListener;
import io.vfiodp.dra.classes.ClassVerdict;
import io.vfiodp.policy.ResourceName;
import java.util.SortedMap;

/**
 * Turns the DeviceClass verdicts of the resources routed to DRA into Events on the Node, so that
 * {@code kubectl describe node} says why pods asking such a resource do not land here: a Warning
 * when a class becomes missing, different or unreadable, a Normal event when it is right again.
 */
public final class DeviceClassEvents implements DraListener {

    static final String PROBLEM = "VfioDraDeviceClassProblem";
    static final String READY = "VfioDraDeviceClassReady";

    private final HealthEvents.Sink sink;

    public DeviceClassEvents(HealthEvents.Sink sink) {
        this.sink = sink;
    }

    /** Events on the node {@code recorder} posts to. */
    public static DeviceClassEvents onNode(NodeEventRecorder recorder) {
        return new DeviceClassEvents(new HealthEvents.Sink() {
            @Override public void warn(String reason, String message) { recorder.warn(reason, message); }
            @Override public void normal(String reason, String message) { recorder.normal(reason, message); }
        });
    }

    @Override
    public void deviceClasses(SortedMap<ResourceName, ClassVerdict> before, SortedMap<ResourceName, ClassVerdict> now) {
        now.forEach((resource, v) -> {
            ClassVerdict was = before.get(resource);
            if (v.equals(was)) return;
            if (!v.ready()) {
                sink.warn(PROBLEM, resource.value() + " is routed to DRA, but " + v.describe());
            } else if (was != null) {
                sink.normal(READY, resource.value() + ": " + v.describe());
            }
        });
    }
}
