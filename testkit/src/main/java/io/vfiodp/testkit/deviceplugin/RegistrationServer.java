package io.vfiodp.testkit.deviceplugin;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** The kubelet's {@code Registration} service on {@code kubelet.sock}: started anew at each kubelet start, stopped at its end. */
final class RegistrationServer {

    private RegistrationServer() {}

    /**
     * Serves Registration on {@code socket} (a file left there is replaced), each call handed to
     * {@code handler} on {@code handlers}: Register dials the plugin back and blocks until it
     * answers, which must not happen on the event loop.
     */
    static Server start(Path socket, EventLoopGroup group, Executor handlers, RegisterHandler handler) throws IOException {
        Files.deleteIfExists(socket);
        return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a unix socket does not have (netty would warn per connection)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .executor(handlers)
                .addService(new RegistrationGrpc.RegistrationImplBase() {
                    @Override
                    public void register(RegisterRequest request, StreamObserver<Empty> response) {
                        handler.register(request, response);
                    }
                })
                .build()
                .start();
    }

    /** Stops {@code server} at once, waiting briefly for its calls to end. */
    static void stop(Server server) {
        server.shutdownNow();
        try {
            server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
