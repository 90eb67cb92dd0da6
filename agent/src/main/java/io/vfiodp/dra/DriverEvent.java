package io.vfiodp.dra;

import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.node.TargetState;
import java.util.Set;

/** What the driver's step reacts to: news from outside and the outcomes of its own actions. */
sealed interface DriverEvent {

    /** A pass decided what the node offers now; its DRA part is what the driver offers, as {@code view}. */
    record TargetChanged(TargetState target, DriverView view) implements DriverEvent {}

    /** A sweep of the files: the running servers whose socket file is gone or was replaced. */
    record Swept(Set<DriverSocket> gone) implements DriverEvent {
        public Swept {
            gone = Set.copyOf(gone);
        }
    }

    /** {@link DriverAction.StartServer} for {@code generation} succeeded. */
    record ServerStarted(DriverSocket socket, long generation) implements DriverEvent {}

    /** {@link DriverAction.StartServer} for {@code generation} failed with {@code problem}. */
    record ServerFailed(DriverSocket socket, long generation, String problem) implements DriverEvent {}

    /** The kubelet's plugin watcher told whether it took the driver, and if not, why. */
    record RegistrationVerdict(boolean registered, String error) implements DriverEvent {}

    /** Time to repeat the health list, so that the kubelet does not time the devices out. */
    record Heartbeat() implements DriverEvent {}

    /** Time to compare the slices with the API again. */
    record ResyncSlices() implements DriverEvent {}

    /** The outcome of a {@link DriverAction.SyncSlices}. */
    record SlicesSynced(SlicePublisher.Outcome outcome) implements DriverEvent {}

    /** The outcome of a {@link DriverAction.ProbeTaints}. */
    record TaintsProbed(SlicePublisher.Probe probe) implements DriverEvent {}

    /** Stop serving; later events change nothing. */
    record Close() implements DriverEvent {}
}
