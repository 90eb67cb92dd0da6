package io.vfiodp.dra;

import io.vfiodp.dra.DriverEvent.Close;
import io.vfiodp.dra.DriverEvent.Heartbeat;
import io.vfiodp.dra.DriverEvent.RegistrationVerdict;
import io.vfiodp.dra.DriverEvent.ResyncSlices;
import io.vfiodp.dra.DriverEvent.ServerFailed;
import io.vfiodp.dra.DriverEvent.ServerStarted;
import io.vfiodp.dra.DriverEvent.SlicesSynced;
import io.vfiodp.dra.DriverEvent.Swept;
import io.vfiodp.dra.DriverEvent.TaintsProbed;
import io.vfiodp.dra.DriverEvent.TargetChanged;
import io.vfiodp.kubelet.Step.Result;
import java.util.List;
import java.util.Optional;

/**
 * The DRA driver's decision, without threads, sockets, files, the API or clocks:
 * {@code (state, events, now) → (state', actions)}. Events first change what is known (a node
 * state, a socket gone, a verdict, an outcome); then the driver is brought one step closer to what
 * it should be: both sockets served, the view's health told, and the slices and the health list the
 * view implies published. The kubelet's calls on the claims are {@link ClaimBook}'s. Like the
 * device-plugin side's {@code ReconcileStep}, it is level-triggered, so a trigger needs no payload.
 */
final class DriverStep {

    private final DraSettings settings;

    DriverStep(DraSettings settings) {
        this.settings = settings;
    }

    /** Takes in {@code events} that happened together, in order, then converges once. */
    Result<DriverState, DriverAction> next(DriverState state, List<DriverEvent> events, Now now) {
        if (state.closed()) return new Result<>(state, List.of(), Optional.empty());
        DriverDraft p = new DriverDraft(state, settings, now);
        for (DriverEvent event : events) {
            switch (event) {
                case TargetChanged t -> p.target(t.target(), t.view());
                case Swept c -> p.sockets().swept(c.gone());
                case ServerStarted s -> p.sockets().started(s);
                case ServerFailed f -> p.sockets().startFailed(f);
                case RegistrationVerdict v -> p.verdict(v);
                case Heartbeat h -> p.heartbeat();
                case ResyncSlices r -> p.slices().resync();
                case SlicesSynced s -> p.slices().synced(s.outcome());
                case TaintsProbed t -> p.slices().probed(t.probe());
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
