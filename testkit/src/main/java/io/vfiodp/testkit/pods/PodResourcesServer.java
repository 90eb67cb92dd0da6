package io.vfiodp.testkit.pods;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The kubelet's PodResources API ({@code v1.PodResourcesLister}) on a unix socket, as
 * {@code /var/lib/kubelet/pod-resources/kubelet.sock} serves it: {@code List} answers what
 * {@code pods} gives (usually a {@link NodePods}' {@link NodePods#list()}). A test can make it
 * answer UNAVAILABLE ({@link #unavailable(boolean)}), hold every question unanswered as a kubelet
 * that hangs does ({@link #stall(boolean)}), and count the questions ({@link #lists()}).
 */
public final class PodResourcesServer implements AutoCloseable {

    private final Path socket;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory("podresources-sim", true));
    private final AtomicInteger lists = new AtomicInteger();
    private volatile boolean unavailable;
    private final List<Runnable> stalled = new ArrayList<>();
    private boolean stalling;
    private final Server server;

    private PodResourcesServer(Path socket, Supplier<ListPodResourcesResponse> pods) throws IOException {
        this.socket = socket;
        Files.deleteIfExists(socket);
        this.server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .directExecutor()
                .addService(new PodResourcesListerGrpc.PodResourcesListerImplBase() {
                    @Override
                    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
                        lists.incrementAndGet();
                        Runnable answer = () -> {
                            if (unavailable) {
                                response.onError(Status.UNAVAILABLE.withDescription("the kubelet's PodResources server is not ready")
                                        .asRuntimeException());
                                return;
                            }
                            response.onNext(pods.get());
                            response.onCompleted();
                        };
                        synchronized (stalled) {
                            if (stalling) {
                                stalled.add(answer);
                                return;
                            }
                        }
                        answer.run();
                    }
                })
                .build()
                .start();
    }

    /** Serves {@code List} on {@code socket} (a leftover file there is replaced). */
    public static PodResourcesServer start(Path socket, Supplier<ListPodResourcesResponse> pods) throws IOException {
        return new PodResourcesServer(socket, pods);
    }

    public Path socket() {
        return socket;
    }

    /** From now on, every {@code List} fails with UNAVAILABLE ({@code true}) or is answered. */
    public void unavailable(boolean fail) {
        unavailable = fail;
    }

    /**
     * From now on, every {@code List} is held unanswered ({@code true}: the caller's deadline is all that ends it),
     * or answered; the held ones are answered then (a caller that gave up gets nothing).
     */
    public void stall(boolean hold) {
        List<Runnable> release;
        synchronized (stalled) {
            stalling = hold;
            release = hold ? List.of() : List.copyOf(stalled);
            if (!hold) stalled.clear();
        }
        for (Runnable r : release) {
            try {
                r.run();
            } catch (RuntimeException cancelled) {
                // the caller's deadline passed: the call is gone
            }
        }
    }

    /** How many {@code List} calls came, answered or not. */
    public int lists() {
        return lists.get();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
