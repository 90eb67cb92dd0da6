package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.ReconcileAction.Log;
import io.vfiodp.plugin.ReconcileAction.NotifyHealthChanged;
import io.vfiodp.plugin.ReconcileAction.NotifyRegistered;
import io.vfiodp.plugin.ReconcileAction.Publish;
import io.vfiodp.plugin.ReconcileAction.Register;
import io.vfiodp.plugin.ReconcileAction.StartServer;
import io.vfiodp.plugin.ReconcileAction.StopServer;
import io.vfiodp.plugin.ReconcileAction.WakeAt;
import io.vfiodp.plugin.ReconcileEvent.Checked;
import io.vfiodp.plugin.ReconcileEvent.RegistrationAccepted;
import io.vfiodp.plugin.ReconcileEvent.RegistrationFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerFailed;
import io.vfiodp.plugin.ReconcileEvent.ServerStarted;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only place that changes running state: per-resource servers, registrations and the views
 * their handlers read. Everything runs on one thread ({@value #THREAD_NAME}); the public methods
 * only enqueue work and may be called from any thread.
 *
 * <p>What to do is decided by {@link ReconcileStep}; this class owns what the step cannot: the
 * thread, the servers, the registrar and the clock. Every trigger comes with a look at the files
 * ({@code kubelet.sock}'s identity, our sockets), so that a trigger needs no payload: a file
 * watch, a timer or a kubelet restart just calls {@link #requestCheck()}
 * ({@link #kubeletSocketCreated()} when it saw {@code kubelet.sock} being created). New desired
 * states come in through {@link #apply}.
 */
public final class ReconcileLoop implements AutoCloseable {

    public static final String KUBELET_SOCKET = "kubelet.sock";
    static final String THREAD_NAME = "vfio-dp-reconcile";

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final KubeletRegistrar registrar;
    private final PluginListener listener;
    private final Ticker ticker;
    private final ReconcileStep step;
    private final Worker thread;
    private final CoalescingTrigger checkSoon;
    private final AtomicBoolean closing = new AtomicBoolean();

    // Confined to the reconcile thread.
    private ReconcileState state = ReconcileState.INITIAL;
    private final Map<Long, ResourceServer> servers = new HashMap<>();
    private ScheduledFuture<?> wakeUp;

    ReconcileLoop(Path pluginDir, EventLoopGroup group, KubeletRegistrar registrar, Backoff backoff, Duration safetyCheck,
                  PluginListener listener) {
        this(pluginDir, group, registrar, backoff, safetyCheck, listener, Ticker.SYSTEM);
    }

    ReconcileLoop(Path pluginDir, EventLoopGroup group, KubeletRegistrar registrar, Backoff backoff, Duration safetyCheck,
                  PluginListener listener, Ticker ticker) {
        this.kubeletSocket = pluginDir.resolve(KUBELET_SOCKET);
        this.group = group;
        this.registrar = registrar;
        this.listener = listener;
        this.ticker = ticker;
        this.step = new ReconcileStep(pluginDir, backoff);
        this.thread = Worker.start(THREAD_NAME);
        this.checkSoon = new CoalescingTrigger(thread, guarded(() -> checkThen(null)));
        thread.every(safetyCheck, this::requestCheck);
    }

    /**
     * Serve {@code next} from now on. A state equal to the current one changes nothing the kubelet
     * sees. The answer completes once the handlers allocate from {@code next} alone: its views are
     * in place and every call that read an older one is answered (the transport's thread has run a
     * task queued after them); at once when the loop is closed.
     */
    public CompletableFuture<Void> apply(TargetState next) {
        CompletableFuture<Void> takenIn = new CompletableFuture<>();
        boolean queued = enqueue(() -> {
            try {
                checkThen(new ReconcileEvent.TargetChanged(next));
            } finally {
                try {
                    group.submit(() -> takenIn.complete(null));
                } catch (RejectedExecutionException stopping) {
                    takenIn.complete(null);
                }
            }
        });
        if (!queued) takenIn.complete(null);
        return takenIn;
    }

    /** Look again at sockets and {@code kubelet.sock}; cheap and coalesced, call it on any hint. */
    public void requestCheck() {
        checkSoon.fire();
    }

    /**
     * {@code kubelet.sock} was just created: a kubelet (re)started, so waiting out a backoff would
     * only delay it. The check tells a new kubelet from the old one by the file's identity; when
     * a file system hands the new socket the old inode and change time, the restart still shows,
     * because a starting kubelet deletes our sockets and a restarted server registers anew.
     * Forcing a second registration here would make the kubelet drop the connection it just
     * opened, failing any Allocate in flight on it.
     */
    public void kubeletSocketCreated() {
        enqueue(() -> checkThen(new ReconcileEvent.KubeletSocketCreated()));
    }

    /** Every resource's standing, from the reconcile thread. */
    public CompletableFuture<List<ResourceStatus>> status() {
        CompletableFuture<List<ResourceStatus>> f = new CompletableFuture<>();
        if (!enqueue(() -> f.complete(state.statuses(generation -> servers.get(generation).openStreams())))) f.complete(List.of());
        return f;
    }

    /** Runs {@code task} on the reconcile thread; false once it is closed. */
    private boolean enqueue(Runnable task) {
        return thread.offer(guarded(task));
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("reconcile step failed; state is kept and retried on the next check", e);
            }
        };
    }

    /** Feeds {@code event} (if any) together with a look at the files: the step always decides on fresh observations. */
    private void checkThen(ReconcileEvent event) {
        long start = ticker.nanos();
        Set<ResourceName> gone = new HashSet<>();
        for (ResourceState r : state.resources().values()) {
            if (r.server() instanceof ServerState.Up up && !servers.get(up.generation()).socketIntact()) gone.add(r.name());
        }
        Checked look = new Checked(FileIdentity.of(kubeletSocket), gone);
        feed(event == null ? List.of(look) : List.of(event, look));
        listener.reconciled((ticker.nanos() - start) / 1e9);
    }

    /** Runs the step on {@code first}, carries out its actions, and feeds back their outcomes until none is left. */
    private void feed(List<ReconcileEvent> first) {
        Queue<List<ReconcileEvent>> events = new ArrayDeque<>(List.of(first));
        while (!events.isEmpty()) {
            ReconcileStep.Result result = step.next(state, events.remove(), ticker.nanos());
            state = result.state();
            if (wakeUp != null) wakeUp.cancel(false);
            wakeUp = null;
            for (ReconcileAction action : result.actions()) {
                try {
                    execute(action, events);
                } catch (RuntimeException e) {
                    // The state already counts on the rest: one action that fails must not skip them.
                    log.error("reconcile action {} failed", action.getClass().getSimpleName(), e);
                }
            }
        }
    }

    private void execute(ReconcileAction action, Queue<List<ReconcileEvent>> outcomes) {
        switch (action) {
            case StartServer s -> outcomes.add(List.of(start(s)));
            case StopServer s -> {
                ResourceServer server = servers.remove(s.generation());
                if (server != null) server.stop(s.finalEmpty());
            }
            case Publish p -> {
                ResourceServer server = servers.get(p.generation());
                if (server.publish(p.view())) log.info("{}: sent ListAndWatch update to {} stream(s)", p.name(), server.openStreams());
            }
            case Register r -> register(r);
            case WakeAt w -> wakeUp = thread.schedule(this::requestCheck, Duration.ofNanos(w.nanos() - ticker.nanos()));
            case NotifyRegistered n -> listener.registered(n.name(), n.again());
            case NotifyHealthChanged h -> listener.healthChanged(h.name(), h.deviceId(), h.from(), h.to());
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    private ReconcileEvent start(StartServer s) {
        try {
            ResourceServer server = ResourceServer.start(s.view(), s.socket(), group, thread, listener);
            servers.put(s.generation(), server);
            // queued behind this pass, so registration is not delayed by it
            enqueue(server::warmUpAllocate);
            return new ServerStarted(s.name(), s.generation());
        } catch (IOException | RuntimeException e) {
            // The step warns once per problem; this line is for following every retry.
            log.debug("{}: server did not start on {}: {}", s.name(), s.socket(), e.getMessage());
            return new ServerFailed(s.name(), s.generation(), e.getMessage());
        }
    }

    private void register(Register r) {
        RegisterRequest request = RegisterRequest.newBuilder()
                .setVersion(KubeletRegistrar.VERSION)
                .setEndpoint(r.endpoint())
                .setResourceName(r.name().value())
                .setOptions(DevicePluginService.OPTIONS)
                .build();
        registrar.register(request, Optional.of(r.kubelet())).whenComplete((ok, error) -> enqueue(() -> checkThen(error == null
                ? new RegistrationAccepted(r.name(), r.epoch(), r.generation())
                : new RegistrationFailed(r.name(), r.epoch(), r.generation(), error.getMessage()))));
    }

    /**
     * Ends every open stream without a last empty list (the kubelet then keeps each resource's
     * capacity for its grace), stops every server, removes our sockets and ends the thread.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) return;
        try {
            CompletableFuture.runAsync(() -> feed(List.of(new ReconcileEvent.Close())), thread).get(5, TimeUnit.SECONDS);
        } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
            log.warn("shutdown of the device plugin servers did not finish cleanly: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.close();
    }
}
