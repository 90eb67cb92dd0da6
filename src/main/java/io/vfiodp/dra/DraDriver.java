package io.vfiodp.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimBook;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.kubelet.NodeServiceV1;
import io.vfiodp.dra.kubelet.NodeServiceV1beta1;
import io.vfiodp.dra.kubelet.PluginSockets;
import io.vfiodp.dra.kubelet.RegistrationService;
import io.vfiodp.dra.kubelet.SocketDirWatch;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This node's DRA driver: registers with the kubelet through {@code plugins_registry}, serves the
 * DRA node service (v1 and v1beta1) and the health service, prepares claims into CDI devices and
 * KEP-5304 metadata files, and publishes the node's DRA devices as ResourceSlices.
 *
 * <p>Fed like the device-plugin side: {@link #apply} with each new node state (its
 * {@link TargetState#dra()} part is what DRA offers), {@link #reportHealth} with each monitor's
 * verdict, {@link #requestCheck} on any hint. All calls only enqueue work and may come from any
 * thread. Threads, all daemon: {@value DriverLoop#THREAD_NAME}, {@value #GRPC_THREAD}-*,
 * {@value #RPC_THREAD}, {@value SocketDirWatch#THREAD_NAME}, {@code vfio-dra-slices}.
 * {@link #close()} ends them all and removes both sockets; the checkpoint, prepared claims' files
 * and the published slices stay (the kubelet may still unprepare, the next start goes on).
 */
public final class DraDriver implements AutoCloseable {

    static final String GRPC_THREAD = "vfio-dra-grpc";
    static final String RPC_THREAD = "vfio-dra-rpc";

    private final DriverLoop loop;
    private final SlicePublisher slices;
    private final SocketDirWatch watch;
    private final EpollEventLoopGroup group;
    private final ExecutorService rpc;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DraDriver(DriverLoop loop, SlicePublisher slices, SocketDirWatch watch, EpollEventLoopGroup group, ExecutorService rpc) {
        this.loop = loop;
        this.slices = slices;
        this.watch = watch;
        this.group = group;
        this.rpc = rpc;
    }

    public static DraDriver start(DraSettings settings, KubernetesClient client) throws IOException {
        return start(settings, client, Clock.systemUTC());
    }

    /**
     * Opens the checkpoint (fails, naming it, when it is unreadable), then serves. Nothing is
     * offered until the first {@link #apply}.
     *
     * @param clock the time health verdicts are stamped with
     */
    public static DraDriver start(DraSettings settings, KubernetesClient client, Clock clock) throws IOException {
        Files.createDirectories(settings.pluginDir());
        ClaimFiles files = new ClaimFiles(settings.driverName(), settings.pluginDir(), settings.cdiDir());
        ClaimBook book = ClaimBook.open(new Checkpoint(settings.pluginDir(), settings.driverName()), files, settings.driverName(),
                settings.nodeName());
        EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory(GRPC_THREAD, true));
        ExecutorService rpc = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, RPC_THREAD);
            t.setDaemon(true);
            return t;
        });
        SlicePublisher slices = new SlicePublisher(client, settings.driverName(), settings.nodeName(), settings.sliceResync(), settings.backoff());
        HealthService health = new HealthService();
        ClaimSource source = new ClaimSource(client);
        DriverLoop loop = new DriverLoop(l -> {
            NodeServiceV1 v1 = new NodeServiceV1(new KubeletClaims(l, source, files));
            RegistrationService registration = new RegistrationService(settings.driverName(), settings.draSocket(), l::registered);
            return new PluginSockets(settings.draSocket(), List.of(v1, new NodeServiceV1beta1(v1), health), health::closeStreams,
                    settings.registrationSocket(), registration, group, rpc, settings.backoff());
        }, book, slices, health, new HealthList(settings.nodeName(), clock));
        SocketDirWatch watch;
        try {
            watch = SocketDirWatch.start(List.of(settings.registryDir(), settings.pluginDir()), loop::requestCheck);
        } catch (IOException e) {
            loop.close();
            slices.close();
            rpc.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            throw e;
        }
        loop.every(settings.safetyCheck().toMillis(), loop::requestCheck);
        loop.every(settings.healthHeartbeat().toMillis(), loop::heartbeat);
        loop.requestCheck();
        return new DraDriver(loop, slices, watch, group, rpc);
    }

    /** Offer {@code state.dra()} from now on. */
    public void apply(TargetState state) {
        loop.apply(state);
    }

    /**
     * A monitor's health verdict for a device (PCI address or mdev UUID), laid over the policy's: an
     * Unhealthy device leaves the ResourceSlices and is reported Unhealthy on the health stream until
     * the same monitor reports it Healthy. Devices the device plugins serve are ignored here.
     */
    public void reportHealth(String deviceId, Health health) {
        loop.reportHealth(deviceId, health);
    }

    /** Look at the sockets again; cheap and coalesced. */
    public void requestCheck() {
        loop.requestCheck();
    }

    public CompletableFuture<DraStatus> status() {
        return loop.status();
    }

    /** The view gRPC handlers read right now. */
    public DriverView view() {
        return loop.view();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        watch.close();
        loop.close();
        slices.close();
        rpc.shutdownNow();
        try {
            rpc.awaitTermination(2, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
