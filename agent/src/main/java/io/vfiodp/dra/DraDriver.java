package io.vfiodp.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.claims.ClaimStatusWriter;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.classes.DeviceClassMonitor;
import io.vfiodp.dra.kubelet.DraPluginInfo;
import io.vfiodp.dra.kubelet.DriverSockets;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.kubelet.NodeServiceV1;
import io.vfiodp.dra.kubelet.NodeServiceV1beta1;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.handover.HandoverClaims;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.NodeSide;
import io.vfiodp.node.TargetState;
import io.vfiodp.triggers.DirectoryWatch;
import io.vfiodp.triggers.DirectoryWatcher;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's DRA driver: registers with the kubelet through {@code plugins_registry}, serves the
 * DRA node service (v1 and v1beta1) and the health service, prepares claims into CDI devices and
 * KEP-5304 metadata files, and publishes the node's DRA devices as ResourceSlices.
 *
 * <p>One side of the node loop, as the device plugins are: {@link #apply} with each new node state (its
 * {@link TargetState#dra()} part is what DRA offers, health included), from any thread; it swaps
 * the view the claims are decided on under their lock (waiting for a prepare in progress) and
 * enqueues the rest; its own directory watches ask for sweeps. Threads, all daemon:
 * {@value DriverLoop#THREAD_NAME}, {@value #GRPC_THREAD}-*, {@value #RPC_THREAD}, {@value #API_THREAD} (the ResourceSlices'
 * writes, the DeviceClasses' reads and the prepared claims' status), and
 * the watches' (serve's shared one, or {@value #DIR_WATCH_THREAD} for a driver started alone).
 * {@link #close()} ends them all and removes both sockets; the checkpoint, prepared claims' files
 * and the published slices stay (the kubelet may still unprepare, the next start goes on).
 */
public final class DraDriver implements NodeSide, AutoCloseable {

    static final String GRPC_THREAD = "vfio-dra-grpc";
    static final String RPC_THREAD = "vfio-dra-rpc";
    static final String DIR_WATCH_THREAD = "vfio-dra-dir-watch";
    static final String API_THREAD = "vfio-dra-api";

    private static final Supplier<PodResourcesReading> NO_POD_RESOURCES =
            () -> new PodResourcesReading.Unreadable("the driver was started without a PodResources client");
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final DriverLoop loop;
    private final ClaimBook book;
    private final ClaimRecovery recovery;
    private final DraSettings settings;
    private final SlicePublisher slices;
    private final DeviceClassMonitor classes;
    private final List<DirectoryWatch> watches;
    private final EpollEventLoopGroup group;
    private final Worker rpc;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DraDriver(DraSettings settings, DriverLoop loop, ClaimBook book, ClaimRecovery recovery, SlicePublisher slices,
                      DeviceClassMonitor classes, List<DirectoryWatch> watches, EpollEventLoopGroup group, Worker rpc) {
        this.settings = settings;
        this.loop = loop;
        this.book = book;
        this.recovery = recovery;
        this.slices = slices;
        this.classes = classes;
        // filled by start() after construction, so that a failure there closes what was started
        this.watches = watches;
        this.group = group;
        this.rpc = rpc;
    }

    /** Watches its directories on a thread of its own, {@value #DIR_WATCH_THREAD}. */
    public static DraDriver start(DraSettings settings, KubernetesClient client) throws IOException {
        return start(settings, client, Clock.systemUTC(), DraListener.NONE, DirectoryWatcher.ownThread(DIR_WATCH_THREAD));
    }

    /**
     * Opens the checkpoint, then serves. Nothing is offered until the first {@link #apply}. No
     * PodResources: a lost checkpoint keeps every claim from being prepared.
     *
     * @param clock    the time health verdicts are stamped with
     * @param listener told of health changes and failed prepares
     * @param watcher  watches the registry and plugin directories (serve's shared watches)
     * @throws IOException when neither the registry directory nor its parent can be watched
     */
    public static DraDriver start(DraSettings settings, KubernetesClient client, Clock clock, DraListener listener, DirectoryWatcher watcher)
            throws IOException {
        return start(settings, client, clock, Ticker.SYSTEM, listener, watcher, NO_POD_RESOURCES);
    }

    /** As {@link #start(DraSettings, KubernetesClient, Clock, DraListener, DirectoryWatcher)}, backoffs and wake-ups timed on {@code ticker}. */
    public static DraDriver start(DraSettings settings, KubernetesClient client, Clock clock, Ticker ticker, DraListener listener,
                                  DirectoryWatcher watcher) throws IOException {
        return start(settings, client, clock, ticker, listener, watcher, NO_POD_RESOURCES);
    }

    /**
     * As {@link #start(DraSettings, KubernetesClient, Clock, Ticker, DraListener, DirectoryWatcher)},
     * asking {@code pods} (the kubelet's PodResources) which claims it still has prepared when the
     * checkpoint is lost: a checkpoint that is unreadable, empty, fails its checks, or is missing
     * while claims' files are on the host. Then the claims it names are rebuilt from the API,
     * devices such claims may hold go to no other claim, and the checkpoint is written again once
     * the book holds them all.
     */
    public static DraDriver start(DraSettings settings, KubernetesClient client, Clock clock, Ticker ticker, DraListener listener,
                                  DirectoryWatcher watcher, Supplier<PodResourcesReading> pods) throws IOException {
        Files.createDirectories(settings.pluginDir());
        ClaimFiles files = new ClaimFiles(settings.driverName(), settings.pluginDir(), settings.cdiDir());
        Checkpoint checkpoint = new Checkpoint(settings.pluginDir(), settings.driverName());
        SortedMap<String, PreparedClaim> claims;
        Optional<LostClaims> lost;
        switch (checkpoint.load(files)) {
            case Checkpoint.Loaded loaded -> {
                claims = loaded.claims();
                lost = Optional.empty();
            }
            case Checkpoint.Lost l -> {
                claims = l.known();
                lost = Optional.of(LostClaims.at(l.reason()));
                log.warn("DRA: {}. The claims the kubelet still has prepared are not all known: until its PodResources API shows which"
                        + " they are, no claim is prepared on a device one of them may hold (on none while PodResources cannot be read),"
                        + " and the device plugins offer none of those devices. They are rebuilt from PodResources and the API, and the"
                        + " checkpoint is written again. Keep the file and the claims' CDI specs: without them, held devices could be"
                        + " handed out again", l.reason());
            }
        }
        EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory(GRPC_THREAD, true));
        Worker rpc = Worker.start(RPC_THREAD);
        Worker api = Worker.start(API_THREAD);
        SlicePublisher slices = new SlicePublisher(client, settings.driverName(), settings.nodeName(), api);
        DeviceClassMonitor classes = new DeviceClassMonitor(client, settings.driverName(), api, settings.sliceResync(), listener::deviceClasses);
        HealthService health = new HealthService();
        ClaimSource source = new ClaimSource(client);
        ClaimRecovery recovery = new ClaimRecovery(pods, source, settings.driverName(), settings.nodeName());
        ClaimStatusWriter status = new ClaimStatusWriter(client, settings.driverName(), api, clock);
        ClaimBook book = new ClaimBook(claims, lost, settings.driverName(), settings.nodeName(), checkpoint.file(),
                ClaimBook.Edges.of(files, checkpoint));
        NodeServiceV1 v1 = new NodeServiceV1(new KubeletClaims(book, source, files, recovery, status, listener));
        DriverLoop loop = new DriverLoop(settings, ticker, clock, listener, l -> {
            DriverSockets sockets = new DriverSockets(settings.draSocket(), List.of(v1, new NodeServiceV1beta1(v1), health), health::closeStreams,
                    settings.registrationSocket(), DraPluginInfo.registration(settings.driverName(), settings.draSocket(), l::registered), group,
                    rpc);
            return new DriverEdges(sockets, health, slices);
        });
        List<DirectoryWatch> watches = new ArrayList<>();
        DraDriver driver = new DraDriver(settings, loop, book, recovery, slices, classes, watches, group, rpc);
        try {
            // a socket of ours deleted (a kubelet reinstall, a wiped directory) is served again at once, not at the next sweep
            watches.add(watch(watcher, settings.registryDir(), "DRA plugin registry dir", loop));
            if (!settings.pluginDir().equals(settings.registryDir())) {
                watches.add(watch(watcher, settings.pluginDir(), "DRA plugin dir", loop));
            }
        } catch (IOException e) {
            driver.close();
            throw e;
        }
        return driver;
    }

    private static DirectoryWatch watch(DirectoryWatcher watcher, Path dir, String what, DriverLoop loop) throws IOException {
        return watcher.watch(dir, what, change -> {
            if (!(change instanceof DirectoryWatch.Change.Entries e) || e.any(name -> name.endsWith(".sock"))) loop.requestSweep();
        });
    }

    /**
     * Offer {@code state.dra()} from now on, and check the DeviceClasses of its resources. The
     * kubelet's prepares are decided against it before this returns (waiting for one in progress:
     * from then on no claim gets a device it does not offer); the answer completes once the API
     * holds the slices it implies, or writing them failed.
     */
    @Override
    public CompletableFuture<Void> apply(TargetState state) {
        classes.watch(new TreeSet<>(state.dra().resources().resources().keySet()));
        DriverView view = DriverView.of(state, settings.numaForm());
        book.offer(view);
        CompletableFuture<Void> takenIn = loop.apply(state, view);
        // the claims the kubelet still has are rebuilt on the view of this state
        if (book.lost()) book.kubeletRead(recovery.read(book.names()));
        return takenIn;
    }

    @Override
    public Set<String> offers(TargetState state) {
        return state.dra().resources().deviceIds();
    }

    /**
     * The IDs of the devices prepared claims hold (and a prepare or unprepare in progress may):
     * what the device plugins must not offer until the kubelet unprepares them; while the
     * checkpoint is lost and not made good, any device may be held. Any thread.
     */
    public HandoverClaims heldDevices() {
        return book.held();
    }

    public CompletableFuture<DraStatus> status() {
        return loop.status(book::size);
    }

    /** The devices offered, as the driver's thread last took them in (the claims take each view in before it). */
    public DriverView view() {
        return loop.view();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        watches.forEach(DirectoryWatch::close);
        book.close();
        loop.close();
        classes.close();
        slices.close();
        rpc.close();
        try {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
