package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverEvent.RegistrationVerdict;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.kubelet.Step;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One step of the driver's step on a working copy of the state (the input is never changed): the
 * events' changes to what is known, then the convergence, collecting actions in order. The
 * sockets and the slices each have their part ({@link SocketRules}, {@link SliceRules}); the view,
 * the health list and the verdict are kept here.
 */
final class DriverDraft {

    private final DraSettings settings;
    private final Now now;
    private final List<DriverAction> actions = new ArrayList<>();
    private Optional<Long> wakeAt = Optional.empty();
    private final SocketRules sockets;
    private final SliceRules slices;
    private TargetState target;
    private boolean applied;
    private DriverView view;
    private boolean viewChanged;
    private Optional<Boolean> registered;
    private HealthList health;
    private boolean closed;

    DriverDraft(DriverState s, DraSettings settings, Now now) {
        this.settings = settings;
        this.now = now;
        this.target = s.target();
        this.applied = s.applied();
        this.view = s.view();
        this.registered = s.registered();
        this.health = s.health();
        this.sockets = new SocketRules(s.sockets(), Map.of(DriverSocket.SERVICE, settings.draSocket(), DriverSocket.REGISTRATION,
                settings.registrationSocket()), settings.backoff(), now.nanos(), actions);
        this.slices = new SliceRules(s.slices(), settings.nodeName(), settings.driverName(), settings.backoff(), now.nanos(), actions);
    }

    /** The next state, what to do, in order, and when to wake. */
    Step.Result<DriverState, DriverAction> result() {
        return new Step.Result<>(new DriverState(target, applied, view, sockets.result(), registered, slices.result(), health, closed), actions, wakeAt);
    }

    SocketRules sockets() {
        return sockets;
    }

    SliceRules slices() {
        return slices;
    }

    /**
     * A new node state: the view is built again, and each device whose health changed is told and
     * logged, as the device plugins do (not those that come or go).
     *
     * @param after what {@code next} offers through DRA
     */
    void target(TargetState next, DriverView after) {
        if (next.equals(target) && applied) return;
        target = next;
        applied = true;
        for (DraDevice d : after.devices().values()) {
            DraDevice was = view.devices().get(d.name());
            if (was != null && !was.device().health().equals(d.device().health())) {
                actions.add(new NotifyHealthChanged(d.resource(), d.device().id(), was.device().health(), d.device().health()));
                String device = "DRA: " + d.resource() + ": device " + d.device().id() + " (" + d.name() + ")";
                actions.add(d.device().health() instanceof Health.Unhealthy(String reason)
                        ? Log.warn(device + " is now Unhealthy: " + reason)
                        : Log.info(device + " is Healthy again"));
            }
        }
        view = after;
        viewChanged = true;
    }

    void verdict(RegistrationVerdict v) {
        registered = Optional.of(v.registered());
        if (v.registered()) {
            actions.add(Log.info("DRA: registered with the kubelet; checking this node's ResourceSlices (the kubelet removes them when it starts)"));
            slices.requestSync();
        } else {
            actions.add(Log.warn("DRA: the kubelet refused the registration: " + v.error()));
        }
    }

    /** Repeats the health list on every stream, so that the kubelet does not time the devices out. */
    void heartbeat() {
        health.sent().ifPresent(list -> actions.add(new SendHealth(list)));
    }

    void close() {
        closed = true;
        sockets.close();
    }

    /**
     * Serves what is due, publishes what a changed view implies (its health list and its slices,
     * where health shows as taints), and asks to be woken for the next due time.
     */
    void converge() {
        Optional<Long> wake = sockets.converge();
        if (viewChanged) {
            HealthList next = health.next(settings.nodeName(), view, now.wall().getEpochSecond());
            if (!next.sent().equals(health.sent())) actions.add(new SendHealth(next.sent().orElseThrow()));
            health = next;
            slices.desire(SliceLayout.entries(view, settings.driverName()));
        }
        Optional<Long> retry = slices.converge();
        wakeAt = wake.isEmpty() ? retry : retry.isEmpty() ? wake : Optional.of(retry.get() - wake.get() < 0 ? retry.get() : wake.get());
    }
}
