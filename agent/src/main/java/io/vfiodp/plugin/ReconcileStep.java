package io.vfiodp.plugin;

import io.vfiodp.kubelet.Step;
import io.vfiodp.plugin.ReconcileEvent.Close;
import io.vfiodp.plugin.ReconcileEvent.KubeletSocketCreated;
import io.vfiodp.plugin.ReconcileEvent.RegistrationAccepted;
import io.vfiodp.plugin.ReconcileEvent.RegistrationFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerStarted;
import io.vfiodp.plugin.ReconcileEvent.Swept;
import io.vfiodp.plugin.ReconcileEvent.TargetChanged;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The reconcile decision, without threads, sockets or clocks: {@code (state, event, now) →
 * (state', actions)}. An event first changes what is known (a new target, a kubelet, a socket
 * gone, an outcome); then every resource is brought one step closer to serving its current view,
 * registered with the present kubelet. Being level-triggered, an event needs no more detail than
 * what changed: the step works out the rest from the state.
 *
 * <p>Failed starts and registrations are retried for ever on the backoff; a start failure is
 * logged when its problem is new, not on every attempt. Answers meant for another kubelet or for
 * a server since replaced are ignored.
 */
final class ReconcileStep implements Step<ReconcileState, ReconcileEvent, ReconcileAction> {

    private final Path pluginDir;
    private final Backoff backoff;

    ReconcileStep(Path pluginDir, Backoff backoff) {
        this.pluginDir = pluginDir;
        this.backoff = backoff;
    }

    /**
     * Takes in {@code events} that happened together, in order, then converges once: a trigger
     * and the sweep of the files that goes with it are one step, so that what is decided (and
     * logged) sees both, as when a new target and a new kubelet arrive at once.
     */
    @Override
    public Result<ReconcileState, ReconcileAction> next(ReconcileState state, List<ReconcileEvent> events, long now) {
        if (state.closed()) return new Result<>(state, List.of(), Optional.empty());
        ReconcileDraft p = new ReconcileDraft(state, now, pluginDir, backoff);
        for (ReconcileEvent event : events) {
            switch (event) {
                case TargetChanged t -> p.target(t.target());
                case Swept c -> p.swept(c);
                case KubeletSocketCreated k -> p.kubeletSocketCreated();
                case ServerStarted s -> p.started(s);
                case ServerFailed f -> p.startFailed(f);
                case RegistrationAccepted a -> p.accepted(a);
                case RegistrationFailed f -> p.registrationFailed(f);
                case Close c -> {
                    p.close();
                    return p.result();
                }
            }
        }
        p.converge();
        return p.result();
    }
}
