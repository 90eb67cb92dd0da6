package io.vfiodp.plugin;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Calls the kubelet's {@code Registration.Register}. Each attempt dials {@code kubelet.sock}
 * afresh: after a kubelet restart the old connection points at a deleted socket, and a channel's
 * own reconnect backoff would delay re-registration.
 */
final class KubeletRegistrar implements AutoCloseable {

    static final String VERSION = "v1beta1";

    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final Duration timeout;
    private final Set<ManagedChannel> open = ConcurrentHashMap.newKeySet();

    KubeletRegistrar(Path kubeletSocket, EventLoopGroup group, Duration timeout) {
        this.kubeletSocket = kubeletSocket;
        this.group = group;
        this.timeout = timeout;
    }

    CompletableFuture<Void> register(RegisterRequest request) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(kubeletSocket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group)
                .directExecutor()
                .usePlaintext()
                .overrideAuthority("localhost")
                .build();
        open.add(channel);
        RegistrationGrpc.newStub(channel)
                .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .register(request, new StreamObserver<>() {
                    @Override public void onNext(Empty value) {}

                    @Override public void onError(Throwable t) {
                        release(channel);
                        done.completeExceptionally(t);
                    }

                    @Override public void onCompleted() {
                        release(channel);
                        done.complete(null);
                    }
                });
        return done;
    }

    private void release(ManagedChannel channel) {
        open.remove(channel);
        channel.shutdownNow();
    }

    @Override
    public void close() {
        for (ManagedChannel c : open) c.shutdownNow();
        for (ManagedChannel c : open) {
            try {
                c.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        open.clear();
    }
}
