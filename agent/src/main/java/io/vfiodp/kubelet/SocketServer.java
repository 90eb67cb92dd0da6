package io.vfiodp.kubelet;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server on a unix socket the kubelet dials: a device plugin's resource socket, a DRA
 * driver's service and registration sockets. It knows which file it created, so that a socket
 * deleted under it (a kubelet restart, a wiped directory) is noticed, and so that stopping it
 * never unlinks the socket of a successor bound to the same path, in this process or another
 * (the next pod of a rolling update).
 *
 * <p>Netty unlinks the path it bound when the server closes, whatever file is there by then. So
 * the server binds a hidden name beside the socket and renames it into place: netty's unlink hits
 * the hidden name, long gone, and the socket path is removed only while it still holds our file.
 * The rename also makes the socket appear already listening, and a dot name is one the kubelet's
 * plugin watcher and our own watches pass over.
 */
public final class SocketServer {

    /** How long a stop waits for calls in flight, then again after cancelling them. */
    private static final long STOP_WAIT_SECONDS = 1;
    private static final int HIDDEN_NAME_DIGITS = 5;
    private static final long HIDDEN_NAMES = (long) Math.pow(Character.MAX_RADIX, HIDDEN_NAME_DIGITS);

    private final Path socket;
    private final Server server;
    private final Optional<FileIdentity> identity;

    private SocketServer(Path socket, Server server, Optional<FileIdentity> identity) {
        this.socket = socket;
        this.server = server;
        this.identity = identity;
    }

    /**
     * Binds {@code socket} and serves {@code services} at once, their handlers on {@code handlers}.
     * A leftover file from a previous run is deleted first; the socket's directory must exist.
     *
     * @throws IOException saying what stands in the way (a directory in the socket's place, a
     *                     missing or read-only directory) or why the bind failed
     */
    public static SocketServer bind(Path socket, List<BindableService> services, EventLoopGroup group, Executor handlers) throws IOException {
        Path bound = hiddenName(socket);
        return start(socket, services, builder(bound, group).executor(handlers), bound);
    }

    /** As {@link #bind(Path, List, EventLoopGroup, Executor)}, handlers on the event loop: for handlers that never block. */
    public static SocketServer bindDirect(Path socket, List<BindableService> services, EventLoopGroup group) throws IOException {
        Path bound = hiddenName(socket);
        return start(socket, services, builder(bound, group).directExecutor(), bound);
    }

    private static NettyServerBuilder builder(Path bound, EventLoopGroup group) {
        return NettyServerBuilder.forAddress(new DomainSocketAddress(bound.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have (netty would warn per connection)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .withChildOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group);
    }

    private static SocketServer start(Path socket, List<BindableService> services, NettyServerBuilder builder, Path bound)
            throws IOException {
        deleteLeftover(socket);
        services.forEach(builder::addService);
        Server server = builder.build().start();
        try {
            Files.move(bound, socket, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            server.shutdownNow();
            Files.deleteIfExists(bound);
            throw e instanceof FileSystemException f && f.getReason() != null ? new IOException(f.getReason(), e) : e;
        }
        return new SocketServer(socket, server, FileIdentity.of(socket));
    }

    /**
     * A name beside {@code socket} to bind first: a dot name no longer than {@code dra.sock}, so that
     * it fits a socket address wherever the socket's own path does; random, so that two processes
     * binding the same socket at once do not share it.
     */
    private static Path hiddenName(Path socket) {
        String random = Long.toString(ThreadLocalRandom.current().nextLong(HIDDEN_NAMES), Character.MAX_RADIX);
        return socket.resolveSibling(".b" + "0".repeat(HIDDEN_NAME_DIGITS - random.length()) + random);
    }

    /** Nobody else may own our name: a leftover from a previous run goes, what cannot go is named as the problem. */
    private static void deleteLeftover(Path socket) throws IOException {
        try {
            Files.deleteIfExists(socket);
        } catch (DirectoryNotEmptyException e) {
            throw new IOException("a directory that is not empty is in its place", e);
        } catch (FileSystemException e) {
            throw new IOException(e.getReason() != null ? e.getReason() : e.toString(), e);
        }
    }

    public Path socket() {
        return socket;
    }

    /** True when the socket file is still the one this server created. */
    public boolean intact() {
        return identity.isPresent() && FileIdentity.of(socket).equals(identity);
    }

    /**
     * Stops the server: calls in flight get a moment to finish, then are cancelled. Then removes the
     * socket file if it is still the one this server created. Streams that never end on their own
     * (ListAndWatch, health) are to be ended before.
     */
    public void stop() {
        server.shutdown();
        try {
            if (!server.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                server.shutdownNow();
                server.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (intact()) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException ignored) {
                // Best effort: the directory may be gone or read-only by now.
            }
        }
    }
}
