package io.vfiodp.hooks;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hook sidecar's gRPC server on a unix socket in the hooks directory.
 *
 * <p>How virt-launcher finds it: every sidecar container mounts the pod's
 * {@code hook-sidecar-sockets} emptyDir at {@code /var/run/kubevirt-hooks}. KubeVirt 1.x mounts
 * a per-container sub-directory there (subPath = the container name, {@code hook-sidecar-0}…)
 * and virt-launcher reads each sub-directory's entries; older releases share one flat
 * directory. Either way the sidecar puts one socket directly into the directory it sees, and
 * virt-launcher dials every entry, calls Info, and waits until it has one answer per
 * requested sidecar. The socket name is ours and avoids the {@code kubevirt-} prefix.
 */
public final class HookSidecarServer implements AutoCloseable {

    public static final String SOCKET_NAME = "vfio-device-plugin.sock";

    private static final Logger LOG = LoggerFactory.getLogger(HookSidecarServer.class);
    private static final int MAX_SOCKET_PATH_BYTES = 107;

    private final Path socket;
    private final Server server;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Worker calls;
    private final CountDownLatch stopRequested;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HookSidecarServer(Path socket, Server server, EventLoopGroup boss, EventLoopGroup workers, Worker calls,
                              CountDownLatch stopRequested) {
        this.socket = socket;
        this.stopRequested = stopRequested;
        this.server = server;
        this.boss = boss;
        this.workers = workers;
        this.calls = calls;
    }

    /** Binds {@value #SOCKET_NAME} in {@code socketDir} and serves Info and Callbacks v1alpha1..v1alpha3. */
    public static HookSidecarServer start(Path socketDir, DomainDefinitionHook hook) throws IOException {
        if (!Epoll.isAvailable()) {
            throw new IOException("unix domain sockets need netty's epoll transport, which is unavailable here: " + Epoll.unavailabilityCause());
        }
        Files.createDirectories(socketDir);
        Path socket = socketDir.resolve(SOCKET_NAME).toAbsolutePath();
        if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            throw new IOException("socket path " + socket + " is longer than the " + MAX_SOCKET_PATH_BYTES + " bytes a unix socket address allows");
        }
        removeStaleSocket(socket);
        EventLoopGroup boss = new EpollEventLoopGroup(1);
        EventLoopGroup workers = new EpollEventLoopGroup(1);
        Worker calls = Worker.start("hook-sidecar-calls");
        CountDownLatch stopRequested = new CountDownLatch(1);
        Server server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket lacks; netty would warn per connection
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .executor(calls)
                .addService(new InfoService())
                .addService(new CallbacksV1alpha1(hook))
                .addService(new CallbacksV1alpha2(hook))
                .addService(new CallbacksV1alpha3(hook, () -> {
                    LOG.info("hook sidecar stopping: virt-launcher called Shutdown");
                    stopRequested.countDown();
                }))
                .build();
        HookSidecarServer sidecar = new HookSidecarServer(socket, server, boss, workers, calls, stopRequested);
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            sidecar.close();
            throw new IOException("cannot serve on " + socket + ": " + e.getMessage(), e);
        }
        LOG.info("hook sidecar serving Info and Callbacks v1alpha1..v1alpha3 on {}", socket);
        return sidecar;
    }

    private static void removeStaleSocket(Path socket) throws IOException {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) return;
        if (Files.isRegularFile(socket, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(socket, LinkOption.NOFOLLOW_LINKS)
                || Files.isSymbolicLink(socket)) {
            throw new IOException(socket + " exists and is not a socket; refusing to replace it");
        }
        Files.delete(socket);
    }

    public Path socket() {
        return socket;
    }

    /** Blocks until virt-launcher calls Shutdown or {@link #close} is called; the owner then closes the server. */
    public void awaitStopRequest() throws InterruptedException {
        stopRequested.await();
    }

    /** Stops serving (letting a call in flight, such as Shutdown itself, finish), frees its threads and removes the socket. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        stopRequested.countDown();
        server.shutdown();
        try {
            if (!server.awaitTermination(5, TimeUnit.SECONDS)) server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        calls.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", socket, e.getMessage());
        }
    }
}
