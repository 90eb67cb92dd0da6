package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.node.NodeSide;
import io.vfiodp.node.TargetState;
import io.vfiodp.triggers.DirectoryWatch;
import io.vfiodp.triggers.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The device-plugin side of the node: one epoll event loop shared by every server and
 * registration call, the reconcile loop and the watch of the device-plugin directory. Threads, all
 * daemon: {@code vfio-dp-grpc-*} (one) and {@value ReconcileLoop#THREAD_NAME}; the watch runs on
 * the caller's {@code DirectoryWatcher} (serve's shared {@code DirectoryWatches}). The
 * node loop ({@code node.NodeLoop}) hands it every pass's state. {@link #close()} ends them all and
 * leaves no socket of ours behind.
 */
public final class PluginRuntime implements NodeSide, AutoCloseable {

    private final EpollEventLoopGroup group;
    private final KubeletRegistrar registrar;
    private final ReconcileLoop loop;
    private final DirectoryWatch watch;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PluginRuntime(EpollEventLoopGroup group, KubeletRegistrar registrar, ReconcileLoop loop, DirectoryWatch watch) {
        this.group = group;
        this.registrar = registrar;
        this.loop = loop;
        this.watch = watch;
    }

    /**
     * Checks the device-plugin dir and removes the sockets a previous run left, then starts the
     * event loop and connects to the kubelet's registration socket on a second thread while the
     * caller reads the first state; {@link Starting#serve} then serves.
     */
    public static Starting begin(PluginSettings settings) throws IOException {
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
        return new Starting(settings, transport);
    }

    /**
     * The device plugins while they start: {@link #serve} once the first state is read; closing
     * closes what started, the runtime included once it serves.
     */
    public static final class Starting implements AutoCloseable {
        private final PluginSettings settings;
        private final CompletableFuture<Transport> transport;
        private PluginRuntime runtime;

        private Starting(PluginSettings settings, CompletableFuture<Transport> transport) {
            this.settings = settings;
            this.transport = transport;
        }

        /**
         * The runtime, serving nothing until its first {@link #apply}: the reconcile loop telling
         * {@code listener} what the servers do, the device-plugin dir watched with {@code watcher}.
         */
        public synchronized PluginRuntime serve(PluginListener listener, DirectoryWatcher watcher) throws IOException {
            if (runtime != null) throw new IllegalStateException("the device plugins serve already");
            Transport started;
            try {
                started = transport.join();
            } catch (CompletionException e) {
                throw (IOException) e.getCause();
            }
            EpollEventLoopGroup group = started.group();
            KubeletRegistrar registrar = started.registrar();
            ReconcileLoop loop = new ReconcileLoop(settings.pluginDir(), group, registrar, settings.registrationBackoff(),
                    settings.safetySweep(), listener);
            DirectoryWatch watch;
            try {
                watch = watcher.watch(settings.pluginDir(), "device-plugin dir",
                        change -> PluginDirChanges.apply(change, loop, settings.pluginDir()));
            } catch (IOException e) {
                loop.close();
                registrar.close();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
                throw e;
            }
            runtime = new PluginRuntime(group, registrar, loop, watch);
            return runtime;
        }

        /** The runtime {@link #serve} started. */
        public synchronized PluginRuntime runtime() {
            if (runtime == null) throw new IllegalStateException("the device plugins do not serve yet");
            return runtime;
        }

        @Override
        public synchronized void close() {
            if (runtime != null) runtime.close();
            else transport.thenAccept(Transport::close);
        }
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

    /** Serves {@code state.plugins()} from now on; completes once the handlers allocate from it. */
    @Override
    public CompletableFuture<Void> apply(TargetState state) {
        return loop.apply(state);
    }

    @Override
    public Set<String> offers(TargetState state) {
        return state.plugins().deviceIds();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            watch.close();
            loop.close();
            registrar.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
