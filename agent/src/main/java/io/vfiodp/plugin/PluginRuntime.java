package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.TargetState;
import io.vfiodp.triggers.CoalescingTrigger;
import io.vfiodp.triggers.DirectoryWatch;
import io.vfiodp.triggers.DirectoryWatcher;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running device plugin: one epoll event loop shared by every server and registration
 * call, the reconcile loop, the watch of the device-plugin directory and the rescans. Threads, all
 * daemon: {@code vfio-dp-grpc-*} (one), {@value ReconcileLoop#THREAD_NAME}, {@value #RESCAN_THREAD},
 * and {@value #DIR_WATCH_THREAD} unless the watch runs on serve's shared {@code DirectoryWatches}.
 * {@link #close()} ends them all and leaves no socket of ours behind.
 */
public final class PluginRuntime implements AutoCloseable {

    static final String RESCAN_THREAD = "vfio-dp-rescan";
    static final String DIR_WATCH_THREAD = "vfio-dp-dir-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final EpollEventLoopGroup group;
    private final KubeletRegistrar registrar;
    private final ReconcileLoop loop;
    private final DirectoryWatch watch;
    private final Worker rescan;
    private final CoalescingTrigger rescanSoon;
    private final NodeStateSource source;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    // the periodic full rescan; replaced by rescanEvery
    private ScheduledFuture<?> periodic;
    private Duration period;
    /** How long a device the host took away stays listed as Unhealthy at most (see {@link #keepDepartedFor}). */
    public static final Duration DEPARTED_KEPT = Duration.ofSeconds(30);
    private volatile Duration departedKept = DEPARTED_KEPT;
    // the pass that drops departed devices, when the periodic one is further away; the rescan thread's alone
    private ScheduledFuture<?> departuresPass;

    private PluginRuntime(EpollEventLoopGroup group, KubeletRegistrar registrar, ReconcileLoop loop, DirectoryWatch watch,
                          Worker rescan, NodeStateSource source) {
        this.group = group;
        this.registrar = registrar;
        this.loop = loop;
        this.watch = watch;
        this.rescan = rescan;
        this.source = source;
        this.rescanSoon = new CoalescingTrigger(rescan, this::rescanOnce);
    }

    /**
     * Reads the first state on the calling thread (so a bad configuration fails here, loudly),
     * then serves it and rescans every {@link PluginSettings#rescanInterval()}, reading the whole
     * host ({@link NodeStateSource#readFully()}).
     */
    public static PluginRuntime start(PluginSettings settings, NodeStateSource source) throws IOException {
        return start(settings, source, PluginListener.NONE);
    }

    /**
     * As {@link #start(PluginSettings, NodeStateSource)}, telling {@code listener} what the servers
     * do; the device-plugin dir is watched on a thread of its own, {@value #DIR_WATCH_THREAD}.
     */
    public static PluginRuntime start(PluginSettings settings, NodeStateSource source, PluginListener listener) throws IOException {
        return start(settings, source, listener, DirectoryWatcher.ownThread(DIR_WATCH_THREAD));
    }

    /** As {@link #start(PluginSettings, NodeStateSource, PluginListener)}, watching the device-plugin dir with {@code watcher}. */
    public static PluginRuntime start(PluginSettings settings, NodeStateSource source, PluginListener listener, DirectoryWatcher watcher)
            throws IOException {
        checkPluginDir(settings.pluginDir());
        StaleSockets.remove(settings.pluginDir());
        // Netty unpacks and loads its native epoll library on first use, and the group starts its thread: on a second core while
        // we scan. (serve through Main has loaded the library already, while picocli read the options: ServePrestart.) The
        // connection to kubelet.sock for the first Register is made there too, meanwhile.
        CompletableFuture<Transport> transport = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            EpollEventLoopGroup group;
            try {
                group = new EpollEventLoopGroup(1, new DefaultThreadFactory("vfio-dp-grpc", true));
            } catch (Throwable t) {
                transport.completeExceptionally(new IOException("netty's epoll transport is unavailable: " + t, t));
                return;
            }
            KubeletRegistrar registrar = new KubeletRegistrar(settings.pluginDir().resolve(ReconcileLoop.KUBELET_SOCKET), group,
                    settings.registrationTimeout());
            try {
                registrar.dialAhead();
                transport.complete(new Transport(group, registrar));
            } catch (Throwable t) {
                new Transport(group, registrar).close();
                transport.completeExceptionally(new IOException("cannot connect to the kubelet's registration socket: " + t, t));
            }
        }, "vfio-dp-start");
        starter.setDaemon(true);
        starter.start();
        TargetState first;
        try {
            first = source.read();
        } catch (RuntimeException e) {
            transport.thenAccept(Transport::close);
            throw e;
        }
        Transport started;
        try {
            started = transport.join();
        } catch (CompletionException e) {
            throw (IOException) e.getCause();
        }
        EpollEventLoopGroup group = started.group();
        KubeletRegistrar registrar = started.registrar();
        ReconcileLoop loop = new ReconcileLoop(settings.pluginDir(), group, registrar, settings.registrationBackoff(), settings.safetySweep(),
                listener);
        DirectoryWatch watch;
        try {
            watch = watcher.watch(settings.pluginDir(), "device-plugin dir", change -> PluginDirChanges.apply(change, loop, settings.pluginDir()));
        } catch (IOException e) {
            loop.close();
            registrar.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            throw e;
        }
        Worker rescan = Worker.start(RESCAN_THREAD);
        PluginRuntime runtime = new PluginRuntime(group, registrar, loop, watch, rescan, source);
        source.devicePluginsHanded(first, loop.apply(first));
        runtime.rescanEvery(settings.rescanInterval());
        return runtime;
    }

    /** The event loop every server and Register call shares, and the registrar on it. */
    private record Transport(EpollEventLoopGroup group, KubeletRegistrar registrar) {
        void close() {
            registrar.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Fails, naming the directory and the problem, when a socket cannot be created in the kubelet's
     * device-plugin directory: it is not there, it is read-only, or its path leaves no room for the
     * socket name of the longest resource name (which short names would hide until such a resource
     * is configured). These are mount or option mistakes that no retry mends.
     */
    public static void checkPluginDir(java.nio.file.Path pluginDir) throws IOException {
        if (!Files.isDirectory(pluginDir)) {
            throw new IOException("device-plugin dir " + pluginDir + " does not exist (mount the kubelet's /var/lib/kubelet/device-plugins)");
        }
        if (!Files.isWritable(pluginDir)) {
            // Create a file to learn why from the kernel (a read-only mount, permissions); it fails, so nothing stays behind.
            try {
                Files.delete(Files.createTempFile(pluginDir, ".vfio-dp-", ".probe"));
            } catch (java.nio.file.FileSystemException e) {
                throw new IOException("device-plugin dir " + pluginDir + " is not writable (" + (e.getReason() != null ? e.getReason() : e)
                        + "): the plugin creates its sockets there (mount the kubelet's /var/lib/kubelet/device-plugins read-write)", e);
            }
        }
        try {
            SocketNames.checkRoom(pluginDir, SocketNames.LONGEST_RESOURCE);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * The reconcile loop: to feed it states and triggers, and to read each resource's status.
     * Device health arrives only inside the states, from the scans.
     */
    public ReconcileLoop loop() {
        return loop;
    }

    /**
     * Rescans soon, on the rescan thread, instead of waiting for the next period. Calls while a
     * rescan is queued join it: a burst of file events costs one scan after the one in flight,
     * never a pile of them behind a slow sysfs.
     */
    public void rescanNow() {
        if (!closed.get()) rescanSoon.fire();
    }

    /**
     * From now on, the periodic full rescan runs every {@code period}, the first one {@code period}
     * from now: serve lengthens it while kernel uevents arrive and shortens it when they stop.
     */
    public synchronized void rescanEvery(Duration period) {
        if (closed.get()) return;
        if (periodic != null) periodic.cancel(false);
        try {
            periodic = rescan.every(period, this::fullRescanOnce);
            this.period = period;
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed meanwhile: nothing to rescan for
        }
    }

    /**
     * Runs {@code task} on the rescan thread, the one every pass after the first runs on, after the
     * passes queued there; dropped once closed. The first pass's state is with the reconcile loop by
     * the time {@link #start} returns, so work that follows from it waits for no kubelet call.
     */
    public void onPassThread(Runnable task) {
        rescan.offer(task);
    }

    private void rescanOnce() {
        pass(source::read);
    }

    private void fullRescanOnce() {
        pass(source::readFully);
    }

    private void pass(java.util.function.Supplier<TargetState> read) {
        try {
            TargetState state = read.get();
            source.devicePluginsHanded(state, loop.apply(state));
            if (source.wantsAnotherPass()) dropDepartedLater();
        } catch (RuntimeException e) {
            log.warn("rescan failed, keeping the previous state: {}", e.getMessage());
        }
    }

    /**
     * A device the host took away is listed once more as Unhealthy, with the reason, and dropped by
     * the next pass. With the full rescan every 30 s that was at most 30 s; under kernel uevents the
     * next pass may be minutes away, so one is asked for after {@code kept} (the periodic rescan
     * does it when it comes sooner). Meanwhile the kubelet allocates nothing from it, and an
     * Allocate naming it is told why.
     */
    public void keepDepartedFor(Duration kept) {
        if (kept.isNegative() || kept.isZero()) throw new IllegalArgumentException("departed devices kept for a non-positive time: " + kept);
        departedKept = kept;
    }

    private void dropDepartedLater() {
        Duration kept = departedKept;
        Duration every;
        synchronized (this) {
            every = period;
        }
        if (every != null && every.compareTo(kept) <= 0 || departuresPass != null && !departuresPass.isDone()) return;
        try {
            departuresPass = rescan.schedule(this::rescanOnce, kept);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed meanwhile: nothing to drop
        }
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        done.await();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            rescan.close();
            watch.close();
            loop.close();
            registrar.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            done.countDown();
        }
    }
}
