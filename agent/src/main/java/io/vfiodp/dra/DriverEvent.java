package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** What the driver's step reacts to: news from outside and the outcomes of its own actions. */
sealed interface DriverEvent {

    /** A pass decided what the node offers now; its DRA part is what the driver offers. */
    record TargetChanged(TargetState target) implements DriverEvent {}

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

    /** The kubelet asks to prepare these claims; {@code call} names the answer. */
    record PrepareRequested(long call, List<ClaimRequest> requests) implements DriverEvent {
        public PrepareRequested {
            requests = List.copyOf(requests);
        }
    }

    /** The kubelet asks to unprepare these claims. */
    record UnprepareRequested(long call, List<ClaimRef> refs) implements DriverEvent {
        public UnprepareRequested {
            refs = List.copyOf(refs);
        }
    }

    /**
     * While the checkpoint is lost: what the kubelet's PodResources lists as prepared, and what the
     * API says of the claims it names that the book lacks ({@code fetched}, each with the UID the
     * API gave it).
     */
    record KubeletClaimsRead(PodResourcesReading reading, List<ClaimRequest> fetched) implements DriverEvent {
        public KubeletClaimsRead {
            Objects.requireNonNull(reading, "reading");
            fetched = List.copyOf(fetched);
        }
    }

    /** {@link DriverAction.WriteFiles} of claim {@code uid} for {@code call} is done; {@code problem} when it failed. */
    record FilesWritten(long call, String uid, Optional<String> problem) implements DriverEvent {
        public FilesWritten {
            Objects.requireNonNull(problem, "problem");
        }
    }

    /** {@link DriverAction.RemoveFiles} is done; {@code problem} when it failed. */
    record FilesRemoved(long call, ClaimRef claim, boolean undo, Optional<String> problem) implements DriverEvent {
        public FilesRemoved {
            Objects.requireNonNull(problem, "problem");
        }
    }

    /** {@link DriverAction.SaveCheckpoint} for {@code call} is done; {@code problem} when it failed. */
    record CheckpointSaved(long call, Optional<String> problem) implements DriverEvent {
        public CheckpointSaved {
            Objects.requireNonNull(problem, "problem");
        }
    }

    /** Stop serving; later events change nothing. */
    record Close() implements DriverEvent {}
}
