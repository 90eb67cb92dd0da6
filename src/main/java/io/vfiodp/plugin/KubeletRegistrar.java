package io.vfiodp.plugin;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Calls the kubelet's {@code Registration.Register}. Each attempt dials {@code kubelet.sock}
 * afresh: after a kubelet restart the old connection points at a deleted socket, and a channel's
 * own reconnect backoff would delay re-registration.
 *
 * <p>An attempt is meant for one kubelet, the one whose {@code kubelet.sock} the caller saw. When
 * the connection turns out to lead to a newer socket file, the request is not sent: the caller
 * would take the answer for a stale one and register again, and a kubelet that gets a second
 * Register for a resource drops the connection it opened for the first, failing Allocate calls
 * in flight on it.
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

    /** Registers with the kubelet listening on the socket file {@code kubelet}; fails if another one answers. */
    CompletableFuture<Void> register(RegisterRequest request, Optional<FileIdentity> kubelet) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(kubeletSocket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledBuffers.ALLOCATOR)
                .eventLoopGroup(group)
                .directExecutor()
                .usePlaintext()
                .overrideAuthority("localhost")
                .build();
        open.add(channel);
        long deadline = System.nanoTime() + timeout.toNanos();
        var timer = group.schedule(() -> {
            if (done.completeExceptionally(Status.DEADLINE_EXCEEDED.withDescription("no connection to " + kubeletSocket + " within "
                    + timeout.toMillis() + " ms").asRuntimeException())) {
                release(channel);
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        done.whenComplete((ok, error) -> timer.cancel(false));
        whenConnected(channel, done, () -> {
            if (done.isDone()) return;
            if (channel.getState(false) == ConnectivityState.READY && !FileIdentity.of(kubeletSocket).equals(kubelet)) {
                release(channel);
                done.completeExceptionally(new IllegalStateException(kubeletSocket + " was replaced while connecting (kubelet restart)"));
                return;
            }
            long left = Math.max(1, deadline - System.nanoTime());
            RegistrationGrpc.newStub(channel)
                    .withDeadlineAfter(left, TimeUnit.NANOSECONDS)
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
        });
        return done;
    }

    /**
     * Runs {@code then} once the channel has connected or failed to: a socket path is resolved
     * when connecting, so only a connected channel tells which file it reached. A failed connect
     * goes on to the call, which fails with the connect error as its reason.
     */
    private void whenConnected(ManagedChannel channel, CompletableFuture<Void> done, Runnable then) {
        ConnectivityState state = channel.getState(true);
        if (state == ConnectivityState.READY || state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.SHUTDOWN) {
            then.run();
        } else {
            channel.notifyWhenStateChanged(state, () -> {
                if (!done.isDone()) whenConnected(channel, done, then);
            });
        }
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
