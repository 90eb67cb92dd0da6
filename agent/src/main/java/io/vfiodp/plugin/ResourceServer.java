package io.vfiodp.plugin;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.kubelet.SocketServer;
import io.vfiodp.policy.ResourceName;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One resource's gRPC server on its own unix socket. Created, published to and stopped only by
 * the reconcile thread.
 */
final class ResourceServer {

    private final ResourceName name;
    private final DevicePluginService service;
    private final SocketServer server;

    private ResourceServer(ResourceName name, DevicePluginService service, SocketServer server) {
        this.name = name;
        this.service = service;
        this.server = server;
    }

    /** Binds and serves at once: the kubelet dials the socket while we register. */
    static ResourceServer start(ResourceView view, Path socket, EventLoopGroup group, Executor reconcileThread,
                                PluginListener listener) throws IOException {
        DevicePluginService service = new DevicePluginService(view, reconcileThread, listener);
        // Handlers never block: unary calls are pure functions, streams are handed over.
        return new ResourceServer(view.name(), service, SocketServer.bindDirect(socket, List.of(service), group));
    }

    /** See {@link DevicePluginService#warmUpAllocate()}. */
    void warmUpAllocate() {
        service.warmUpAllocate();
    }

    ResourceName name() {
        return name;
    }

    Path socket() {
        return server.socket();
    }

    ResourceView view() {
        return service.view();
    }

    /** True when the socket file is still the one this server created. */
    boolean socketIntact() {
        return server.intact();
    }

    /** Swaps the view; true when a ListAndWatch update went out. */
    boolean publish(ResourceView view) {
        return service.publish(view);
    }

    int openStreams() {
        return service.openStreams();
    }

    /**
     * Ends the streams (with a last empty list when {@code finalEmpty}), then stops the server
     * ({@link SocketServer#stop()}: a successor's socket is never unlinked).
     */
    void stop(boolean finalEmpty) {
        service.closeStreams(finalEmpty);
        server.stop();
    }
}
