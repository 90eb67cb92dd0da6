package io.vfiodp.demo.kubelet;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.StreamObserver;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
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
 * ListAndWatch open and records every update, and the calls the kubelet makes when a pod
 * needs devices. {@link #restart()} behaves like a kubelet restart: every socket in the
 * directory is deleted and {@code kubelet.sock} is created anew.
 *
 * <p>Used by the tests and by the {@code demo} command.
 */
public final class KubeletSimulator implements AutoCloseable {

    public static final String SOCKET = "kubelet.sock";
    public static final String VERSION = "v1beta1";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private final Path dir;
    private final EpollEventLoopGroup group;
    private final ExecutorService handlers;
    // Callbacks of our connections to the plugins; grpc's shared pool would keep its threads a minute after close().
    private final ExecutorService streams;
    private final List<Registration> registrations = new ArrayList<>();
    private final List<String> rejections = new ArrayList<>();
    private final Map<String, Connection> connections = new HashMap<>();
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

    private record Connection(ManagedChannel channel, Watch watch) {}

    private KubeletSimulator(Path dir) {
        this.dir = dir;
        this.group = new EpollEventLoopGroup(1, new DefaultThreadFactory("kubelet-sim-epoll", true));
        this.handlers = Executors.newFixedThreadPool(2, new DefaultThreadFactory("kubelet-sim", true));
        this.streams = Executors.newSingleThreadExecutor(new DefaultThreadFactory("kubelet-sim-streams", true));
    }

    /** Creates {@code kubelet.sock} in {@code dir} and serves Registration on it. */
    public static KubeletSimulator start(Path dir) throws IOException {
        KubeletSimulator k = new KubeletSimulator(dir);
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
                        long start;
                        synchronized (KubeletSimulator.this) {
                            start = starts;
                        }
                        try {
                            accept(request, start);
                            response.onNext(Empty.getDefaultInstance());
                            response.onCompleted();
                        } catch (StatusRuntimeException e) {
                            synchronized (KubeletSimulator.this) {
                                if (start == starts) rejections.add(e.getStatus().getDescription());
                                KubeletSimulator.this.notifyAll();
                            }
                            response.onError(e);
                        }
                    }
                })
                .build()
                .start();
    }

    private void accept(RegisterRequest request, long start) {
        if (!VERSION.equals(request.getVersion())) {
            throw refuse("Unsupported device plugin API version '" + request.getVersion() + "' from " + request.getResourceName() + ", expected " + VERSION);
        }
        Optional<String> bad = ResourceName.problem(request.getResourceName());
        if (bad.isPresent()) throw refuse("invalid resource name: " + bad.get());
        String endpoint = request.getEndpoint();
        if (endpoint.isEmpty() || endpoint.contains("/")) {
            throw refuse("endpoint '" + endpoint + "' of " + request.getResourceName() + " must be a socket file name in " + dir);
        }
        Path socket = dir.resolve(endpoint);
        if (!isSocket(socket)) throw refuse("endpoint " + socket + " of " + request.getResourceName() + " is not a unix socket");
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group)
                .executor(streams)
                .usePlaintext()
                .overrideAuthority("localhost")
                .build();
        DevicePluginOptions options;
        try {
            options = DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getDevicePluginOptions(Empty.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            channel.shutdownNow();
            throw new StatusRuntimeException(Status.UNAVAILABLE.withDescription("cannot reach plugin " + request.getResourceName()
                    + " at " + socket + ": " + e.getStatus()));
        }
        Watch watch = new Watch(request.getResourceName());
        Connection previous;
        synchronized (this) {
            if (start != starts) {
                // A restarted kubelet is a new process: what its predecessor was answering never reaches it.
                channel.shutdownNow();
                throw new StatusRuntimeException(Status.UNAVAILABLE.withDescription("kubelet restarted while registering "
                        + request.getResourceName()));
            }
            previous = connections.put(request.getResourceName(), new Connection(channel, watch));
            registrations.add(new Registration(request.getResourceName(), endpoint, options, Instant.now()));
            notifyAll();
        }
        if (previous != null) previous.channel.shutdownNow();
        // Outlives this Register call: detach it from the call's context, which ends when we answer.
        Context.ROOT.run(() -> DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), watch.observer()));
    }

    private static StatusRuntimeException refuse(String message) {
        return new StatusRuntimeException(Status.INVALID_ARGUMENT.withDescription(message));
    }

    private static boolean isSocket(Path p) {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & S_IFMT) == S_IFSOCK;
        } catch (IOException e) {
            return false;
        }
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
    public synchronized Watch watch(String resource) {
        Connection c = connections.get(resource);
        if (c == null) throw new IllegalStateException(resource + " is not registered");
        return c.watch;
    }

    /** Opens one more ListAndWatch stream to {@code resource}'s plugin. */
    public Watch openWatch(String resource) {
        Watch w = new Watch(resource);
        DevicePluginGrpc.newStub(channel(resource)).listAndWatch(Empty.getDefaultInstance(), w.observer());
        return w;
    }

    public DevicePluginOptions options(String resource) {
        return stub(resource).getDevicePluginOptions(Empty.getDefaultInstance());
    }

    /** The kubelet's GetPreferredAllocation for one container; the plugin's choice. */
    public List<String> preferredAllocation(String resource, List<String> available, List<String> mustInclude, int size) {
        return stub(resource).getPreferredAllocation(PreferredAllocationRequest.newBuilder()
                        .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                                .addAllAvailableDeviceIDs(available)
                                .addAllMustIncludeDeviceIDs(mustInclude)
                                .setAllocationSize(size))
                        .build())
                .getContainerResponses(0).getDeviceIDsList();
    }

    /** The kubelet's Allocate: one list of device IDs per container. Throws the plugin's refusal as is. */
    public AllocateResponse allocate(String resource, List<List<String>> containers) {
        AllocateRequest.Builder b = AllocateRequest.newBuilder();
        for (List<String> ids : containers) b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
        return stub(resource).allocate(b.build());
    }

    /** A blocking stub on the plugin connection of {@code resource}, for calls the helpers above do not cover. */
    public DevicePluginGrpc.DevicePluginBlockingStub stub(String resource) {
        return DevicePluginGrpc.newBlockingStub(channel(resource)).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized ManagedChannel channel(String resource) {
        Connection c = connections.get(resource);
        if (c == null) throw new IllegalStateException(resource + " is not registered");
        return c.channel;
    }

    /**
     * A kubelet restart: Registration stops, plugin connections drop, every socket in the
     * directory is deleted, then {@code kubelet.sock} is created again.
     */
    public void restart() throws IOException {
        stopRegistration();
        dropConnections();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) if (isSocket(p)) Files.deleteIfExists(p);
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

    private void dropConnections() {
        List<Connection> old;
        synchronized (this) {
            old = List.copyOf(connections.values());
            connections.clear();
        }
        for (Connection c : old) c.channel.shutdownNow();
        for (Connection c : old) {
            try {
                c.channel.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
        handlers.shutdownNow();
        streams.shutdownNow();
        try {
            handlers.awaitTermination(2, TimeUnit.SECONDS);
            streams.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The most recent ListAndWatch message for {@code resource}, if it is registered and has sent one. */
    public synchronized Optional<ListAndWatchResponse> latest(String resource) {
        Connection c = connections.get(resource);
        return c == null ? Optional.empty() : c.watch.latest();
    }
}
