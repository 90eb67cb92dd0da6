package io.vfiodp.plugin;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.policy.ResourceName;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One resource's gRPC server on its own unix socket. Created, published to and stopped only by
 * the reconcile thread.
 */
final class ResourceServer {

    private final ResourceName name;
    private final Path socket;
    private final DevicePluginService service;
    private final Server server;
    private Optional<FileIdentity> identity = Optional.empty();

    private ResourceServer(ResourceName name, Path socket, DevicePluginService service, Server server) {
        this.name = name;
        this.socket = socket;
        this.service = service;
        this.server = server;
    }

    /** Binds and serves at once: the kubelet dials the socket while we register. */
    static ResourceServer start(ResourceView view, Path socket, EventLoopGroup group, Executor reconcileThread,
                                PluginListener listener) throws IOException {
        DevicePluginService service = new DevicePluginService(view, reconcileThread, listener);
        // A leftover from a previous run would make bind() fail; nobody else may own our name.
        try {
            Files.deleteIfExists(socket);
        } catch (DirectoryNotEmptyException e) {
            throw new IOException("a directory that is not empty is in its place", e);
        } catch (FileSystemException e) {
            throw new IOException(e.getReason() != null ? e.getReason() : e.toString(), e);
        }
        Server server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have (netty would warn per connection)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .withChildOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                // Handlers never block: unary calls are pure functions, streams are handed over.
                .directExecutor()
                .addService(service)
                .build();
        server.start();
        ResourceServer rs = new ResourceServer(view.name(), socket, service, server);
        rs.identity = FileIdentity.of(socket);
        return rs;
    }

    /** See {@link DevicePluginService#warmUpAllocate()}. */
    void warmUpAllocate() {
        service.warmUpAllocate();
    }

    ResourceName name() {
        return name;
    }

    Path socket() {
        return socket;
    }

    ResourceView view() {
        return service.view();
    }

    /** True when the socket file is still the one this server created. */
    boolean socketIntact() {
        return identity.isPresent() && FileIdentity.of(socket).equals(identity);
    }

    /** Swaps the view; true when a ListAndWatch update went out. */
    boolean publish(ResourceView view) {
        return service.publish(view);
    }

    int openStreams() {
        return service.openStreams();
    }

    /**
     * Ends the streams (with a last empty list when {@code finalEmpty}), stops the server and
     * waits until it let go of the socket: netty unlinks the path on close, which must not hit a
     * successor bound to the same path.
     */
    void stop(boolean finalEmpty) {
        service.closeStreams(finalEmpty);
        server.shutdown();
        try {
            if (!server.awaitTermination(1, TimeUnit.SECONDS)) {
                server.shutdownNow();
                server.awaitTermination(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (socketIntact()) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException ignored) {
                // Best effort: netty normally removed it already.
            }
        }
    }
}
