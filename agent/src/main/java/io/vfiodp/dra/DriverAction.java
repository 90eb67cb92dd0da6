package io.vfiodp.dra;

import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.HealthTaint;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.util.List;
import java.util.Optional;
import org.slf4j.event.Level;

/** What the driver's step asks its thread to do, in order. */
sealed interface DriverAction {

    /** Serve {@code socket} as {@code generation}; answer with a ServerStarted or ServerFailed event. */
    record StartServer(DriverSocket socket, long generation) implements DriverAction {}

    /** Stop server {@code generation} (the DRA service's health streams are ended first), removing its socket if it is still ours. */
    record StopServer(DriverSocket socket, long generation) implements DriverAction {}

    /** Send {@code list} on every health stream, and to streams opened later. */
    record SendHealth(NodeWatchResourcesResponse list) implements DriverAction {}

    /**
     * Make the API hold {@code layout} as this node's ResourceSlices, a write going above
     * {@code generation}; answer with a SlicesSynced event.
     */
    record SyncSlices(List<List<SliceLayout.Entry>> layout, long generation, Optional<String> nodeUid) implements DriverAction {
        public SyncSlices {
            layout = List.copyOf(layout);
        }
    }

    /** Ask the API server, in a dry run, whether it keeps {@code taint} on a device; answer with a TaintsProbed event. */
    record ProbeTaints(HealthTaint taint) implements DriverAction {}

    /** Tell the listener a device offered through DRA changed health. */
    record NotifyHealthChanged(ResourceName resource, String deviceId, Health from, Health to) implements DriverAction {}

    /** One line in the driver's log. */
    record Log(Level level, String message) implements DriverAction {

        static Log info(String message) {
            return new Log(Level.INFO, message);
        }

        static Log warn(String message) {
            return new Log(Level.WARN, message);
        }
    }
}
