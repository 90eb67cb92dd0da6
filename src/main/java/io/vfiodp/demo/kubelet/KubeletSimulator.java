package io.vfiodp.demo.kubelet;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A kubelet, as far as device plugins can tell: the {@code Registration} service on
 * {@code kubelet.sock} with the kubelet's checks, a client per registered plugin that keeps
 * ListAndWatch open and records every update, the node's capacity and allocatable the kubelet
 * makes of those lists and of streams that end ({@link #resources()}, by the kubelet's rules,
 * {@link DeviceManager}), and the calls the kubelet makes when a pod needs devices.
 * {@link #restart()} behaves like a kubelet restart: every socket in the directory is deleted and
 * {@code kubelet.sock} is created anew.
 *
 * <p>Used by the tests and by the {@code demo} command.
 */
public final class KubeletSimulator implements AutoCloseable {

    public static final String SOCKET = "kubelet.sock";
    public static final String VERSION = "v1beta1";
    /** How long the kubelet keeps a resource whose plugin's stream ended: devicemanager's endpointStopGracePeriod. */
    public static final Duration STOP_GRACE = DeviceManager.STOP_GRACE;

    private final Path dir;
    private final EpollEventLoopGroup group;
    private final ExecutorService handlers;
    // Callbacks of our connections to the plugins; grpc's shared pool would keep its threads a minute after close().
    private final ExecutorService streams;
    private final List<Registration> registrations = new ArrayList<>();
    private final List<String> rejections = new ArrayList<>();
    private final PluginConnections connections = new PluginConnections();
    private final DeviceManager deviceManager;
    private Server server;
    // Which kubelet run a Register call reached (bumped when one stops), and where the current run's registrations begin.
    private long starts;
    private int firstOfThisStart;

    /**
     * An accepted registration.
     *
     * @param options what the plugin's GetDevicePluginOptions answered during Register
     */
    public record Registration(String resourceName, String endpoint, DevicePluginOptions options, Instant at) {}

    private KubeletSimulator(Path dir, Clock clock) {
        this.dir = dir;
        this.deviceManager = new DeviceManager(clock);
        this.group = new EpollEventLoopGroup(1, new DefaultThreadFactory("kubelet-sim-epoll", true));
        this.handlers = Executors.newFixedThreadPool(2, new DefaultThreadFactory("kubelet-sim", true));
        this.streams = Executors.newSingleThreadExecutor(new DefaultThreadFactory("kubelet-sim-streams", true));
    }

    /** Creates {@code kubelet.sock} in {@code dir} and serves Registration on it. */
    public static KubeletSimulator start(Path dir) throws IOException {
        return start(dir, Clock.systemUTC());
    }

    /** As {@link #start(Path)}, with {@code clock} timing the grace of a plugin whose stream ended. */
    public static KubeletSimulator start(Path dir, Clock clock) throws IOException {
        KubeletSimulator k = new KubeletSimulator(dir, clock);
        try {
            k.startRegistration();
        } catch (IOException | RuntimeException e) {
            k.close();
            throw e;
        }
        return k;
    }

    public Path dir() {
        return dir;
    }

    private void startRegistration() throws IOException {
        synchronized (this) {
            firstOfThisStart = registrations.size();
        }
        Path socket = dir.resolve(SOCKET);
        Files.deleteIfExists(socket);
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have (netty would warn per connection)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                // Register dials the plugin back and blocks until it answers: not on the event loop.
                .executor(handlers)
                .addService(new RegistrationGrpc.RegistrationImplBase() {
                    @Override
                    public void register(RegisterRequest request, StreamObserver<Empty> response) {
                        handleRegister(request, response);
                    }
                })
                .build()
                .start();
    }

    private void handleRegister(RegisterRequest request, StreamObserver<Empty> response) {
        long start;
        synchronized (this) {
            start = starts;
        }
        try {
            accept(request, start);
            response.onNext(Empty.getDefaultInstance());
            response.onCompleted();
        } catch (StatusRuntimeException e) {
            synchronized (this) {
                if (start == starts) rejections.add(e.getStatus().getDescription());
                notifyAll();
            }
            response.onError(e);
        }
    }

    private void accept(RegisterRequest request, long start) {
        Path socket = RegistrationRules.endpoint(request, dir);
        String endpoint = request.getEndpoint();
        ManagedChannel channel = PluginConnection.dial(socket, group, streams);
        DevicePluginOptions options = PluginConnection.options(channel, request.getResourceName(), socket);
        String resource = request.getResourceName();
        Watch watch = new Watch(resource, new Watch.Listener() {
            @Override public void listed(Watch w, ListAndWatchResponse list) {
                deviceManager.listed(resource, w, list);
            }

            @Override public void ended(Watch w) {
                deviceManager.ended(resource, w);
            }
        });
        synchronized (this) {
            if (start != starts) {
                // A restarted kubelet is a new process: what its predecessor was answering never reaches it.
                channel.shutdownNow();
                throw new StatusRuntimeException(Status.UNAVAILABLE.withDescription("kubelet restarted while registering "
                        + request.getResourceName()));
            }
            connections.put(request.getResourceName(), channel, watch);
            deviceManager.connected(resource, watch);
            registrations.add(new Registration(request.getResourceName(), endpoint, options, Instant.now()));
            notifyAll();
        }
        // Outlives this Register call: detach it from the call's context, which ends when we answer.
        Context.ROOT.run(() -> DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), watch.observer()));
    }

    /** Every accepted registration so far, across restarts, in order. */
    public synchronized List<Registration> registrations() {
        return List.copyOf(registrations);
    }

    /** The registrations the kubelet as it runs now accepted: since its start or last {@link #restart()}, in order. */
    public synchronized List<Registration> registrationsSinceRestart() {
        return List.copyOf(registrations.subList(firstOfThisStart, registrations.size()));
    }

    /** Why registrations were refused, in order. */
    public synchronized List<String> rejections() {
        return List.copyOf(rejections);
    }

    /** Waits until each of {@code resources} has registered at least {@code times} times in all. */
    public synchronized void awaitRegistrations(Collection<String> resources, int times, Duration timeout)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> missing = new ArrayList<>();
            for (String r : resources) {
                if (registrations.stream().filter(x -> x.resourceName().equals(r)).count() < times) missing.add(r);
            }
            if (missing.isEmpty()) return;
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException("not registered " + times + " time(s) within " + timeout + ": " + missing
                    + "; rejections: " + rejections);
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The ListAndWatch stream the kubelet holds for {@code resource} since its last registration. */
    public Watch watch(String resource) {
        return connections.watch(resource);
    }

    /**
     * Every resource the Node's status lists now, by name, as the kubelet's GetCapacity reports
     * them: a resource whose plugin's stream ended more than 5 minutes ago (by the clock given to
     * {@link #start(Path, Clock)}) is gone.
     */
    public Map<String, NodeResource> resources() {
        return deviceManager.capacity();
    }

    /** {@code resource} in the Node's status, if it is listed. */
    public Optional<NodeResource> resource(String resource) {
        return Optional.ofNullable(resources().get(resource));
    }

    /** Opens one more ListAndWatch stream to {@code resource}'s plugin; the kubelet's own account ignores it. */
    public Watch openWatch(String resource) {
        Watch w = new Watch(resource, Watch.Listener.NONE);
        DevicePluginGrpc.newStub(channel(resource)).listAndWatch(Empty.getDefaultInstance(), w.observer());
        return w;
    }

    public DevicePluginOptions options(String resource) {
        return stub(resource).getDevicePluginOptions(Empty.getDefaultInstance());
    }

    /** The kubelet's GetPreferredAllocation for one container; the plugin's choice. */
    public List<String> preferredAllocation(String resource, List<String> available, List<String> mustInclude, int size) {
        return stub(resource).getPreferredAllocation(PluginConnection.preferredRequest(available, mustInclude, size))
                .getContainerResponses(0).getDeviceIDsList();
    }

    /** The kubelet's Allocate: one list of device IDs per container. Throws the plugin's refusal as is. */
    public AllocateResponse allocate(String resource, List<List<String>> containers) {
        return stub(resource).allocate(PluginConnection.allocateRequest(containers));
    }

    /** A blocking stub on the plugin connection of {@code resource}, for calls the helpers above do not cover. */
    public DevicePluginGrpc.DevicePluginBlockingStub stub(String resource) {
        return PluginConnection.stub(channel(resource));
    }

    private ManagedChannel channel(String resource) {
        return connections.channel(resource);
    }

    /**
     * A kubelet restart: Registration stops, plugin connections drop, every socket in the
     * directory is deleted, then {@code kubelet.sock} is created again.
     */
    public void restart() throws IOException {
        stopRegistration();
        deviceManager.restarted();
        dropConnections();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) if (RegistrationRules.isSocket(p)) Files.deleteIfExists(p);
        }
        startRegistration();
    }

    private void stopRegistration() {
        synchronized (this) {
            starts++;
        }
        Server s = server;
        server = null;
        if (s == null) return;
        s.shutdownNow();
        try {
            s.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs what is queued (a stream's end, delivered after its channel closed, must reach its Watch), then stops. */
    private static void shutdown(ExecutorService pool) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(2, TimeUnit.SECONDS)) pool.shutdownNow();
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void dropConnections() {
        connections.dropAll();
    }

    /** Stops everything and removes {@code kubelet.sock}. */
    @Override
    public void close() {
        stopRegistration();
        dropConnections();
        try {
            Files.deleteIfExists(dir.resolve(SOCKET));
        } catch (IOException ignored) {
            // netty removes it when the server closes; this only catches a failed start
        }
        shutdown(handlers);
        shutdown(streams);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The most recent ListAndWatch message for {@code resource}, if it is registered and has sent one. */
    public Optional<ListAndWatchResponse> latest(String resource) {
        return connections.latest(resource);
    }
}
