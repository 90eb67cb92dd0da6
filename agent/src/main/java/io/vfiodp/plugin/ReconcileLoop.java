package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.kubelet.ServerState;
import io.vfiodp.kubelet.StepLoop;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.ReconcileAction.Log;
import io.vfiodp.plugin.ReconcileAction.NotifyHealthChanged;
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
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.Ticker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only place that changes running state: per-resource servers, registrations and the views
 * their handlers read. Everything runs on one thread ({@value #THREAD_NAME}, a {@link StepLoop});
 * the public methods only enqueue work and may be called from any thread.
 *
 * <p>What to do is decided by {@link ReconcileStep}; this class owns what the step cannot: the
 * servers, the registrar and what the step's actions do. Every trigger comes with a sweep of the
 * files ({@code kubelet.sock}'s identity, our sockets), so that a trigger needs no payload: a file
 * watch, a timer or a kubelet restart just calls {@link #requestSweep()}
 * ({@link #kubeletSocketCreated()} when it saw {@code kubelet.sock} being created). New desired
 * states come in through {@link #apply}.
 */
public final class ReconcileLoop implements AutoCloseable {

    public static final String KUBELET_SOCKET = "kubelet.sock";
    static final String THREAD_NAME = "vfio-dp-reconcile";
    /** Stopping every server, each gracefully then forcibly, must not hold the agent's exit for longer. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final KubeletRegistrar registrar;
    private final PluginListener listener;
    private final StepLoop<ReconcileState, ReconcileEvent, ReconcileAction> loop;

    // Confined to the reconcile thread.
    private final Map<Long, ResourceServer> servers = new HashMap<>();

    ReconcileLoop(Path pluginDir, EventLoopGroup group, KubeletRegistrar registrar, Backoff backoff, Duration safetySweep,
                  PluginListener listener) {
        this.kubeletSocket = pluginDir.resolve(KUBELET_SOCKET);
        this.group = group;
        this.registrar = registrar;
        this.listener = listener;
        this.loop = new StepLoop<>(THREAD_NAME, log, ReconcileState.INITIAL, new ReconcileStep(pluginDir, backoff), Ticker.SYSTEM,
                this::sweep, this::execute, nanos -> listener.reconciled(nanos / 1e9));
        loop.sweepEvery(safetySweep);
    }

    /**
     * Serve {@code next} from now on. A state equal to the current one changes nothing the kubelet
     * sees. The answer completes once the handlers allocate from {@code next} alone: its views are
     * in place and every call that read an older one is answered (the transport's thread has run a
     * task queued after them); at once when the loop is closed.
     */
    public CompletableFuture<Void> apply(TargetState next) {
        CompletableFuture<Void> takenIn = new CompletableFuture<>();
        boolean queued = loop.submit(() -> {
            try {
                loop.feed(new ReconcileEvent.TargetChanged(next));
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

    /** Sweep the sockets and {@code kubelet.sock} again; cheap and coalesced, call it on any hint. */
    public void requestSweep() {
        loop.requestSweep();
    }

    /**
     * {@code kubelet.sock} was just created: a kubelet (re)started, so waiting out a backoff would
     * only delay it. The sweep tells a new kubelet from the old one by the file's identity; when
     * a file system hands the new socket the old inode and change time, the restart still shows,
     * because a starting kubelet deletes our sockets and a restarted server registers anew.
     * Forcing a second registration here would make the kubelet drop the connection it just
     * opened, failing any Allocate in flight on it.
     */
    public void kubeletSocketCreated() {
        loop.offer(new ReconcileEvent.KubeletSocketCreated());
    }

    /** Every resource's standing, from the reconcile thread. */
    public CompletableFuture<List<ResourceStatus>> status() {
        CompletableFuture<List<ResourceStatus>> f = new CompletableFuture<>();
        if (!loop.submit(() -> f.complete(loop.state().statuses(generation -> servers.get(generation).openStreams())))) f.complete(List.of());
        return f;
    }

    /** A sweep of the files, made on the reconcile thread with each event. */
    private Swept sweep() {
        Set<ResourceName> gone = new HashSet<>();
        for (ResourceState r : loop.state().resources().values()) {
            if (r.server() instanceof ServerState.Up up && !servers.get(up.generation()).socketIntact()) gone.add(r.name());
        }
        return new Swept(FileIdentity.of(kubeletSocket), gone);
    }

    private void execute(ReconcileAction action, Consumer<ReconcileEvent> outcome) {
        switch (action) {
            case StartServer s -> outcome.accept(start(s));
            case StopServer s -> {
                ResourceServer server = servers.remove(s.generation());
                if (server != null) server.stop(s.finalEmpty());
            }
            case Publish p -> {
                ResourceServer server = servers.get(p.generation());
                if (server.publish(p.view())) log.info("{}: sent ListAndWatch update to {} stream(s)", p.name(), server.openStreams());
            }
            case Register r -> register(r);
            case NotifyRegistered n -> listener.registered(n.name(), n.again());
            case NotifyHealthChanged h -> listener.healthChanged(h.name(), h.deviceId(), h.from(), h.to());
            // As an argument, so that a problem text holding "{}" is printed as it is.
            case Log l -> log.atLevel(l.level()).log("{}", l.message());
        }
    }

    private ReconcileEvent start(StartServer s) {
        try {
            ResourceServer server = ResourceServer.start(s.view(), s.socket(), group, loop.executor(), listener);
            servers.put(s.generation(), server);
            // queued behind this step, so registration is not delayed by it
            loop.submit(server::warmUpAllocate);
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
        registrar.register(request, Optional.of(r.kubelet())).whenComplete((ok, error) -> loop.offer(error == null
                ? new RegistrationAccepted(r.name(), r.epoch(), r.generation())
                : new RegistrationFailed(r.name(), r.epoch(), r.generation(), error.getMessage())));
    }

    /**
     * Ends every open stream without a last empty list (the kubelet then keeps each resource's
     * capacity for its grace), stops every server, removes our sockets and ends the thread.
     * Idempotent.
     */
    @Override
    public void close() {
        loop.close(new ReconcileEvent.Close(), () -> { }, CLOSE_WAIT);
    }
}
