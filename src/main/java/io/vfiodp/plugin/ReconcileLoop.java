package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * <p>Each pass is level-triggered: it compares what should run (the last {@link TargetState},
 * health reports) with what runs (servers, their socket files, {@code kubelet.sock}'s identity)
 * and fixes the difference. A trigger therefore needs no payload: a file watch, a timer or a
 * kubelet restart just calls {@link #requestCheck()} ({@link #kubeletSocketCreated()} when it saw
 * {@code kubelet.sock} being created). New desired states come in through {@link #apply}, health
 * verdicts of monitors through {@link #reportHealth}.
 */
public final class ReconcileLoop implements AutoCloseable {

    public static final String KUBELET_SOCKET = "kubelet.sock";
    static final String THREAD_NAME = "vfio-dp-reconcile";

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Path pluginDir;
    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final KubeletRegistrar registrar;
    private final Backoff backoff;
    private final PluginListener listener;
    private final ScheduledThreadPoolExecutor thread;
    private final AtomicBoolean passQueued = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();

    // Everything below is confined to the reconcile thread.
    private TargetState target = TargetState.EMPTY;
    private final Map<String, Health> healthReports = new HashMap<>();
    private SortedMap<ResourceName, ResourceView> views = new TreeMap<>();
    private boolean viewsStale = true;
    private final SortedMap<ResourceName, Served> served = new TreeMap<>();
    private Optional<FileIdentity> kubelet = Optional.empty();
    private long kubeletEpoch;
    private ScheduledFuture<?> wakeUp;
    private boolean closed;

    ReconcileLoop(Path pluginDir, EventLoopGroup group, KubeletRegistrar registrar, Backoff backoff, Duration safetyCheck,
                  PluginListener listener) {
        this.listener = listener;
        this.pluginDir = pluginDir;
        this.kubeletSocket = pluginDir.resolve(KUBELET_SOCKET);
        this.group = group;
        this.registrar = registrar;
        this.backoff = backoff;
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        thread.scheduleWithFixedDelay(this::requestCheck, safetyCheck.toMillis(), safetyCheck.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Serve {@code next} from now on. A state equal to the current one changes nothing the kubelet sees. */
    public void apply(TargetState next) {
        enqueue(() -> {
            if (!next.equals(target)) {
                target = next;
                viewsStale = true;
            }
            pass();
        });
    }

    /**
     * A health verdict from a monitor, laid over the policy's: {@link Health.Unhealthy} takes the
     * device out of service until the same monitor reports {@link Health#HEALTHY}. It cannot make a
     * device healthy that the policy marked unhealthy.
     */
    public void reportHealth(String deviceId, Health health) {
        enqueue(() -> {
            Health before = health.isHealthy() ? healthReports.remove(deviceId) : healthReports.put(deviceId, health);
            if (!health.equals(before == null ? Health.HEALTHY : before)) viewsStale = true;
            pass();
        });
    }

    /** Look again at sockets and {@code kubelet.sock}; cheap and coalesced, call it on any hint. */
    public void requestCheck() {
        if (passQueued.compareAndSet(false, true)) {
            if (!enqueue(this::pass)) passQueued.set(false);
        }
    }

    /**
     * {@code kubelet.sock} was just created: a kubelet (re)started, so waiting out a registration
     * backoff would only delay it. The pass itself tells a new kubelet from the old one by the
     * file's identity; when a file system hands the new socket the old inode and change time, the
     * restart still shows, because a starting kubelet deletes our sockets and a restarted server
     * registers anew. Forcing a second registration here would make the kubelet drop the
     * connection it just opened, failing any Allocate in flight on it.
     */
    public void kubeletSocketCreated() {
        enqueue(() -> {
            long now = System.nanoTime();
            for (Served s : served.values()) {
                s.registerSoon(now);
                // A server that could not bind so far may well now: the directory changed under it.
                if (s.server == null) s.nextStart = now;
            }
            pass();
        });
    }

    /** Every resource's standing, from the reconcile thread. */
    public CompletableFuture<List<ResourceStatus>> status() {
        CompletableFuture<List<ResourceStatus>> f = new CompletableFuture<>();
        if (!enqueue(() -> f.complete(statusNow()))) f.complete(List.of());
        return f;
    }

    private boolean enqueue(Runnable task) {
        try {
            thread.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.error("reconcile step failed; state is kept and retried on the next check", e);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void pass() {
        passQueued.set(false);
        if (closed) return;
        long now = System.nanoTime();
        observeKubelet();
        if (viewsStale) {
            views = ResourceView.allOf(target, healthReports);
            viewsStale = false;
        }
        for (Iterator<Served> it = served.values().iterator(); it.hasNext(); ) {
            Served s = it.next();
            if (!views.containsKey(s.name)) {
                if (s.server != null) s.server.stop(true);
                log.info("{}: no longer served; socket {} removed", s.name, s.socket.getFileName());
                it.remove();
            }
        }
        for (ResourceView view : views.values()) {
            Served s = served.get(view.name());
            if (s == null) {
                s = new Served(view.name(), pluginDir.resolve(SocketNames.forResource(pluginDir, view.name())));
                served.put(view.name(), s);
            }
            if (s.server != null) {
                logChanges(s.server.view(), view, listener);
                if (s.server.publish(view)) {
                    log.info("{}: sent ListAndWatch update to {} stream(s)", view.name(), s.server.openStreams());
                }
                if (!s.server.socketIntact()) {
                    log.info("{}: socket {} was removed (kubelet restart?); restarting its server", view.name(), s.socket.getFileName());
                    s.server.stop(false);
                    s.server = null;
                    s.startFailures = 0;
                    s.nextStart = now;
                }
            }
            if (s.server == null && now - s.nextStart >= 0) startServer(s, view, now);
        }
        if (kubelet.isPresent()) {
            for (Served s : served.values()) {
                if (awaitsRegistration(s) && now - s.nextRegister >= 0) {
                    register(s);
                }
            }
        }
        scheduleWakeUp(now);
        listener.reconciled((System.nanoTime() - now) / 1e9);
    }

    private void observeKubelet() {
        Optional<FileIdentity> seen = FileIdentity.of(kubeletSocket);
        if (seen.equals(kubelet)) return;
        if (seen.isPresent()) {
            kubeletEpoch++;
            log.info(kubeletEpoch == 1 ? "kubelet.sock is there: registering {} resource(s)"
                    : "kubelet.sock was re-created (kubelet restart): registering {} resource(s) again", target.desired().resources().size());
            long now = System.nanoTime();
            for (Served s : served.values()) s.registerSoon(now);
        } else {
            log.info("kubelet.sock is gone; waiting for the kubelet to come back");
        }
        kubelet = seen;
    }

    private void startServer(Served s, ResourceView view, long now) {
        try {
            s.server = ResourceServer.start(view, s.socket, group, thread, listener);
            s.generation++;
            if (s.startProblem != null) {
                log.info("{}: can serve on {} again after {} failed attempt(s)", view.name(), s.socket, s.startFailures);
                s.startProblem = null;
            }
            s.startFailures = 0;
            s.registerSoon(now);
            log.info("{}: serving {} device(s) on {}{}", view.name(), view.devices().size(), s.socket.getFileName(), deviceSummary(view));
        } catch (IOException | RuntimeException e) {
            s.startFailures++;
            Duration delay = backoff.delayAfter(s.startFailures);
            s.nextStart = now + delay.toNanos();
            // Retried for ever, at most every backoff cap: logged when the problem is new, not on every attempt.
            String problem = e.getMessage();
            if (!java.util.Objects.equals(problem, s.startProblem)) {
                log.warn("{}: cannot serve on {}: {}; other resources are not affected; retrying (backoff {} to {} ms)", view.name(), s.socket,
                        problem, backoff.initial().toMillis(), backoff.max().toMillis());
                s.startProblem = problem;
            }
        }
    }

    private static String deviceSummary(ResourceView view) {
        if (view.devices().isEmpty()) return "";
        StringBuilder sb = new StringBuilder(" (");
        for (ExposedDevice d : view.devices().values()) {
            if (sb.length() > 2) sb.append(", ");
            sb.append(d.id());
            if (!d.health().isHealthy()) sb.append(" unhealthy");
        }
        return sb.append(')').toString();
    }

    private void register(Served s) {
        long epoch = kubeletEpoch;
        int generation = s.generation;
        s.inFlightEpoch = epoch;
        s.inFlightGeneration = generation;
        RegisterRequest request = RegisterRequest.newBuilder()
                .setVersion(KubeletRegistrar.VERSION)
                .setEndpoint(s.socket.getFileName().toString())
                .setResourceName(s.name.value())
                .setOptions(DevicePluginService.OPTIONS)
                .build();
        registrar.register(request, kubelet).whenComplete((ok, error) -> enqueue(() -> registered(s.name, epoch, generation, error)));
    }

    private void registered(ResourceName name, long epoch, int generation, Throwable error) {
        Served s = served.get(name);
        if (closed || s == null) return;
        if (s.inFlightEpoch == epoch && s.inFlightGeneration == generation) s.inFlightEpoch = -1;
        if (epoch != kubeletEpoch || generation != s.generation) {
            pass();
            return;
        }
        if (error == null) {
            s.registeredEpoch = epoch;
            s.registeredGeneration = generation;
            s.registerFailures = 0;
            listener.registered(name, s.registeredBefore);
            s.registeredBefore = true;
            log.info("{}: registered with the kubelet (endpoint {})", name, s.socket.getFileName());
        } else {
            s.registerFailures++;
            Duration delay = backoff.delayAfter(s.registerFailures);
            s.nextRegister = System.nanoTime() + delay.toNanos();
            log.warn("{}: registration failed (attempt {}): {}; retrying in {} ms", name, s.registerFailures, error.getMessage(), delay.toMillis());
        }
        pass();
    }

    /** A running server the present kubelet has not registered and is not being asked about. */
    private boolean awaitsRegistration(Served s) {
        return s.server != null && kubelet.isPresent() && !s.isRegistered(kubeletEpoch) && !s.attemptInFlight(kubeletEpoch);
    }

    private void scheduleWakeUp(long now) {
        long next = Long.MAX_VALUE;
        for (Served s : served.values()) {
            if (s.server == null) next = Math.min(next, s.nextStart - now);
            else if (awaitsRegistration(s)) {
                next = Math.min(next, s.nextRegister - now);
            }
        }
        if (wakeUp != null) wakeUp.cancel(false);
        wakeUp = next == Long.MAX_VALUE ? null : thread.schedule(this::requestCheck, Math.max(0, next), TimeUnit.NANOSECONDS);
    }

    private static void logChanges(ResourceView before, ResourceView after, PluginListener listener) {
        for (ExposedDevice d : after.devices().values()) {
            ExposedDevice old = before.devices().get(d.id());
            if (old == null) {
                log.info("{}: device {} added (NUMA {}, IOMMU group {}, {})", after.name(), d.id(), d.numaNode(), d.iommuGroup(), d.health().wireValue());
            } else if (!old.health().equals(d.health())) {
                listener.healthChanged(after.name(), d.id(), old.health(), d.health());
                if (d.health() instanceof Health.Unhealthy(String reason)) {
                    log.warn("{}: device {} is now Unhealthy: {}", after.name(), d.id(), reason);
                } else {
                    log.info("{}: device {} is Healthy again", after.name(), d.id());
                }
            }
        }
        for (String id : before.devices().keySet()) {
            if (!after.devices().containsKey(id)) log.info("{}: device {} removed", after.name(), id);
        }
    }

    private List<ResourceStatus> statusNow() {
        List<ResourceStatus> out = new ArrayList<>();
        for (Served s : served.values()) {
            ResourceView v = views.get(s.name);
            int devices = v == null ? 0 : v.devices().size();
            int healthy = v == null ? 0 : (int) v.devices().values().stream().filter(d -> d.health().isHealthy()).count();
            out.add(new ResourceStatus(s.name, s.socket, s.server != null, s.server != null && s.isRegistered(kubeletEpoch),
                    devices, healthy, s.server == null ? 0 : s.server.openStreams()));
        }
        return List.copyOf(out);
    }

    /**
     * Sends a last empty device list on every open stream, stops every server, removes our
     * sockets and ends the thread. Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) return;
        try {
            thread.submit(() -> {
                closed = true;
                if (wakeUp != null) wakeUp.cancel(false);
                for (Served s : served.values()) {
                    if (s.server != null) {
                        s.server.stop(true);
                        log.info("{}: stopped; socket {} removed", s.name, s.socket.getFileName());
                    }
                }
                served.clear();
            }).get(5, TimeUnit.SECONDS);
        } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
            log.warn("shutdown of the device plugin servers did not finish cleanly: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Running state of one resource; touched only on the reconcile thread. */
    private static final class Served {
        final ResourceName name;
        final Path socket;
        ResourceServer server;
        int generation;
        int startFailures;
        String startProblem;
        long nextStart = System.nanoTime();
        long registeredEpoch = -1;
        boolean registeredBefore;
        int registeredGeneration = -1;
        long inFlightEpoch = -1;
        int inFlightGeneration = -1;
        int registerFailures;
        long nextRegister = System.nanoTime();

        Served(ResourceName name, Path socket) {
            this.name = name;
            this.socket = socket;
        }

        /** Forget earlier failures: the next pass may register at once. */
        void registerSoon(long now) {
            registerFailures = 0;
            nextRegister = now;
        }

        boolean isRegistered(long epoch) {
            return registeredEpoch == epoch && registeredGeneration == generation;
        }

        boolean attemptInFlight(long epoch) {
            return inFlightEpoch == epoch && inFlightGeneration == generation;
        }
    }
}
