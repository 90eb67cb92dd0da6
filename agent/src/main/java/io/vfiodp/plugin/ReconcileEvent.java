package io.vfiodp.plugin;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import java.util.Optional;
import java.util.Set;

/** What the reconcile step reacts to: news from outside and the outcomes of its own actions. */
sealed interface ReconcileEvent {

    /** A scan decided what should be served now. */
    record TargetChanged(TargetState target) implements ReconcileEvent {}

    /**
     * A sweep of the files: {@code kubelet.sock}'s identity (empty when it is missing) and the
     * running servers whose socket file is gone or was replaced.
     */
    record Swept(Optional<FileIdentity> kubelet, Set<ResourceName> socketsGone) implements ReconcileEvent {
        public Swept {
            socketsGone = Set.copyOf(socketsGone);
        }
    }

    /** {@code kubelet.sock} was just created: a kubelet (re)started, backoffs are moot. */
    record KubeletSocketCreated() implements ReconcileEvent {}

    /** {@link ReconcileAction.StartServer} for {@code generation} succeeded. */
    record ServerStarted(ResourceName name, long generation) implements ReconcileEvent {}

    /** {@link ReconcileAction.StartServer} for {@code generation} failed with {@code problem}. */
    record ServerFailed(ResourceName name, long generation, String problem) implements ReconcileEvent {}

    /** The kubelet accepted the {@link ReconcileAction.Register} sent for {@code epoch} and {@code generation}. */
    record RegistrationAccepted(ResourceName name, long epoch, long generation) implements ReconcileEvent {}

    /** The {@link ReconcileAction.Register} sent for {@code epoch} and {@code generation} failed. */
    record RegistrationFailed(ResourceName name, long epoch, long generation, String error) implements ReconcileEvent {}

    /** Stop everything; later events change nothing. */
    record Close() implements ReconcileEvent {}
}
