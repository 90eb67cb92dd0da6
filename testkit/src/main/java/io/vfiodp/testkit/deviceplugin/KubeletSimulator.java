package io.vfiodp.testkit.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.testkit.UnixSockets;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * <p>The kit's README says which of the kubelet's rules it enforces and where the kubelet does the same.
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
    private final Registrations registrations = new Registrations();
    private final PluginConnections connections = new PluginConnections();
    private final DeviceManager deviceManager;
    private final RegisterHandler register;
    private Server server;

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
        this.register = new RegisterHandler(dir, group, streams, connections, deviceManager, registrations);
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
        registrations.started();
        server = RegistrationServer.start(dir.resolve(SOCKET), group, handlers, register);
    }

    /** Every accepted registration so far, across restarts, in order. */
    public List<Registration> registrations() {
        return registrations.all();
    }

    /** The registrations the kubelet as it runs now accepted: since its start or last {@link #restart()}, in order. */
    public List<Registration> registrationsSinceRestart() {
        return registrations.sinceRestart();
    }

    /** Why registrations were refused, in order. */
    public List<String> rejections() {
        return registrations.rejections();
    }

    /** Waits until each of {@code resources} has registered at least {@code times} times in all. */
    public void awaitRegistrations(Collection<String> resources, int times, Duration timeout) throws InterruptedException, TimeoutException {
        registrations.await(resources, times, timeout);
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
            for (Path p : entries) if (UnixSockets.isSocket(p)) Files.deleteIfExists(p);
        }
        startRegistration();
    }

    private void stopRegistration() {
        registrations.stopped();
        Server s = server;
        server = null;
        if (s != null) RegistrationServer.stop(s);
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
