package io.vfiodp.plugin;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.kubelet.ServerState;
import io.vfiodp.kubelet.ServerState.Down;
import io.vfiodp.kubelet.ServerState.Starting;
import io.vfiodp.kubelet.ServerState.Up;
import io.vfiodp.kubelet.Step;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.ReconcileAction.Log;
import io.vfiodp.plugin.ReconcileAction.NotifyRegistered;
import io.vfiodp.plugin.ReconcileAction.Publish;
import io.vfiodp.plugin.ReconcileAction.Register;
import io.vfiodp.plugin.ReconcileAction.StartServer;
import io.vfiodp.plugin.ReconcileAction.StopServer;
import io.vfiodp.plugin.ReconcileEvent.RegistrationAccepted;
import io.vfiodp.plugin.ReconcileEvent.RegistrationFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerStarted;
import io.vfiodp.plugin.ReconcileEvent.Swept;
import io.vfiodp.plugin.Registration.InFlight;
import io.vfiodp.plugin.Registration.Unregistered;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One step of {@link ReconcileStep} on a working copy of the state (the input is never changed):
 * the events' changes to what is known, then the convergence, collecting actions in order.
 */
final class ReconcileDraft {

    private final Path pluginDir;
    private final Backoff backoff;
    private final long now;
    private TargetState target;
    private SortedMap<ResourceName, ResourceView> views;
    private final SortedMap<ResourceName, ResourceState> resources;
    private Optional<FileIdentity> kubelet;
    private long epoch;
    private long nextGeneration;
    private boolean closed;
    private final List<ReconcileAction> actions = new ArrayList<>();
    private Long wake; // the earliest due time converge() found, if any

    ReconcileDraft(ReconcileState s, long now, Path pluginDir, Backoff backoff) {
        this.pluginDir = pluginDir;
        this.backoff = backoff;
        this.now = now;
        this.target = s.target();
        this.views = s.views();
        this.resources = new TreeMap<>(s.resources());
        this.kubelet = s.kubelet();
        this.epoch = s.epoch();
        this.nextGeneration = s.nextGeneration();
    }

    Step.Result<ReconcileState, ReconcileAction> result() {
        return new Step.Result<>(new ReconcileState(target, views, resources, kubelet, epoch, nextGeneration, closed), actions, Optional.ofNullable(wake));
    }

    void target(TargetState next) {
        if (next.equals(target)) return;
        target = next;
        views = ResourceView.allOf(next);
        for (ResourceState r : List.copyOf(resources.values())) {
            if (views.containsKey(r.name())) continue;
            stop(r, true);
            log(Log.info(r.name() + ": no longer served; socket " + r.socket().getFileName() + " removed"));
            resources.remove(r.name());
        }
        for (ResourceName name : views.keySet()) {
            if (resources.containsKey(name)) continue;
            try {
                resources.put(name, ResourceState.added(name, pluginDir.resolve(SocketNames.forResource(pluginDir, name)), now));
            } catch (IllegalArgumentException e) {
                log(Log.warn(name + ": cannot serve: " + e.getMessage()));
            }
        }
    }

    void swept(Swept c) {
        if (!c.kubelet().equals(kubelet)) {
            if (c.kubelet().isPresent()) {
                epoch++;
                int count = target.plugins().resources().size();
                log(Log.info(epoch == 1 ? "kubelet.sock is there: registering " + count + " resource(s)"
                        : "kubelet.sock was re-created (kubelet restart): registering " + count + " resource(s) again"));
                // Whatever the previous kubelet knew, this one knows nothing.
                resources.replaceAll((name, r) -> r.server() instanceof Up ? r.with(Registration.soon(now)) : r);
            } else {
                log(Log.info("kubelet.sock is gone; waiting for the kubelet to come back"));
            }
            kubelet = c.kubelet();
        }
        for (ResourceName name : c.socketsGone()) {
            ResourceState r = resources.get(name);
            if (r == null || !(r.server() instanceof Up)) continue;
            log(Log.info(name + ": socket " + r.socket().getFileName() + " was removed (kubelet restart?); restarting its server"));
            stop(r, false);
            resources.put(name, r.with(ServerState.dueAt(now)));
        }
    }

    void kubeletSocketCreated() {
        resources.replaceAll((name, r) -> switch (r.server()) {
            // The directory changed under a server that could not bind: it may well bind now.
            case Down d -> r.with(d.retryAt(now));
            case Up up when r.registration() instanceof Unregistered -> r.with(Registration.soon(now));
            case Up up when r.registration() instanceof InFlight f -> r.with(new InFlight(f.epoch(), 0));
            case Up up -> r;
            case Starting s -> r;
        });
    }

    void started(ServerStarted e) {
        ResourceState r = resources.get(e.name());
        if (r == null || !(r.server() instanceof Starting s) || s.generation() != e.generation()) {
            // Not the server this resource waits for: nothing may keep it running.
            actions.add(new StopServer(e.name(), e.generation(), false));
            return;
        }
        if (s.problem() != null) {
            log(Log.info(r.name() + ": can serve on " + r.socket() + " again after " + s.failures() + " failed attempt(s)"));
        }
        resources.put(r.name(), r.serving(s.started(), now));
        log(Log.info(r.name() + ": serving " + r.served().devices().size() + " device(s) on " + r.socket().getFileName()
                + ViewChanges.summary(r.served())));
    }

    void startFailed(ServerFailed e) {
        ResourceState r = resources.get(e.name());
        if (r == null || !(r.server() instanceof Starting s) || s.generation() != e.generation()) return;
        resources.put(r.name(), r.with(s.failed(e.problem(), backoff, now)));
        // Retried for ever, at most every backoff cap: logged when the problem is new, not on every attempt.
        if (s.isNew(e.problem())) {
            log(Log.warn(r.name() + ": cannot serve on " + r.socket() + ": " + e.problem() + "; other resources are not affected; retrying (backoff "
                    + backoff.initial().toMillis() + " to " + backoff.max().toMillis() + " ms)"));
        }
    }

    void accepted(RegistrationAccepted e) {
        ResourceState r = resources.get(e.name());
        if (awaitedAnswer(r, e.epoch(), e.generation()) == null) return;
        resources.put(r.name(), r.registered(epoch));
        actions.add(new NotifyRegistered(r.name(), r.registeredBefore()));
        log(Log.info(r.name() + ": registered with the kubelet (endpoint " + r.endpoint() + ")"));
    }

    void registrationFailed(RegistrationFailed e) {
        ResourceState r = resources.get(e.name());
        InFlight attempt = awaitedAnswer(r, e.epoch(), e.generation());
        if (attempt == null) return;
        int failures = attempt.failures() + 1;
        Duration delay = backoff.delayAfter(failures);
        resources.put(r.name(), r.with(new Unregistered(now + delay.toNanos(), failures)));
        log(Log.warn(r.name() + ": registration failed (attempt " + failures + "): " + e.error() + "; retrying in " + delay.toMillis() + " ms"));
    }

    /** The attempt an answer for {@code epoch} and {@code generation} ends, or null when it is stale. */
    private InFlight awaitedAnswer(ResourceState r, long answerEpoch, long generation) {
        if (r != null && r.server() instanceof Up up && up.generation() == generation && r.registration() instanceof InFlight f
                && f.epoch() == answerEpoch && answerEpoch == epoch) {
            return f;
        }
        return null;
    }

    /**
     * Stops every server without a last empty list: the kubelet takes an empty list literally and
     * forgets the devices at once, while a stream that just ends keeps the resource's capacity, its
     * devices Unhealthy, for the kubelet's grace (devicemanager's endpointStopGracePeriod), which
     * covers a restart or an upgrade of the plugin. A resource withdrawn while running
     * ({@link #target}) still gets its empty list.
     */
    void close() {
        closed = true;
        for (ResourceState r : resources.values()) {
            if (r.server() instanceof Up) {
                stop(r, false);
                log(Log.info(r.name() + ": stopped; socket " + r.socket().getFileName() + " removed"));
            } else if (r.server() instanceof Starting s) {
                actions.add(new StopServer(r.name(), s.generation(), false));
            }
        }
        resources.clear();
    }

    /** Publishes changed views, starts servers that are due, registers those that are due, and asks to be woken for the next due time. */
    void converge() {
        for (ResourceState before : List.copyOf(resources.values())) {
            ResourceState r = before;
            ResourceView view = views.get(r.name());
            if (r.server() instanceof Up up && r.served() != view) {
                actions.addAll(ViewChanges.between(r.served(), view));
                actions.add(new Publish(r.name(), up.generation(), view));
                r = r.publishing(view);
            }
            if (r.server() instanceof Down d) {
                if (d.dueBy(now)) {
                    long generation = nextGeneration++;
                    actions.add(new StartServer(r.name(), r.socket(), view, generation));
                    r = r.starting(d.start(generation), view);
                } else {
                    wake = earlier(wake, d.nextStart());
                }
            }
            if (r.server() instanceof Up up && r.registration() instanceof Unregistered u && kubelet.isPresent()) {
                if (due(u.nextAttempt())) {
                    actions.add(new Register(r.name(), r.endpoint(), epoch, up.generation(), kubelet.get()));
                    r = r.with(new InFlight(epoch, u.failures()));
                } else {
                    wake = earlier(wake, u.nextAttempt());
                }
            }
            resources.put(r.name(), r);
        }
    }

    private void stop(ResourceState r, boolean finalEmpty) {
        if (r.server() instanceof Up up) actions.add(new StopServer(r.name(), up.generation(), finalEmpty));
    }

    private void log(Log line) {
        actions.add(line);
    }

    // Times are nanoTime-like: compared by difference, so that a wrap does not matter.
    private boolean due(long at) {
        return now - at >= 0;
    }

    private static Long earlier(Long a, long b) {
        return a == null || b - a < 0 ? b : a;
    }
}
