package io.vfiodp.demo.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's Node capacity over gRPC, by the kubelet's rule (kubernetes/kubernetes
 * pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go at b1ce15c545: Run returns when the
 * stream ends, and handler.go at f449697457 runClient then disconnects the client, which calls
 * manager.go's PluginDisconnected): a plugin that ends its stream leaves its capacity with nothing
 * allocatable for 5 minutes; one that sends an empty list leaves nothing.
 */
class KubeletSimulatorGraceTest {

    static final String GPU = "example.com/gpu";
    static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir Path dir;
    final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    final CompletableFuture<StreamObserver<ListAndWatchResponse>> stream = new CompletableFuture<>();
    EpollEventLoopGroup group;
    KubeletSimulator kubelet;
    Server plugin;

    static final ListAndWatchResponse TWO = ListAndWatchResponse.newBuilder()
            .addDevices(Device.newBuilder().setID("a").setHealth("Healthy"))
            .addDevices(Device.newBuilder().setID("b").setHealth("Healthy")).build();

    @BeforeEach
    void start() throws Exception {
        group = new EpollEventLoopGroup(1);
        kubelet = KubeletSimulator.start(dir, clock);
        plugin = NettyServerBuilder.forAddress(new DomainSocketAddress(dir.resolve("fake.sock").toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .addService(new DevicePluginGrpc.DevicePluginImplBase() {
                    @Override
                    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
                        response.onNext(DevicePluginOptions.getDefaultInstance());
                        response.onCompleted();
                    }

                    @Override
                    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
                        response.onNext(TWO);
                        stream.complete(response);
                    }
                })
                .build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(dir.resolve("kubelet.sock").toString()))
                .channelType(EpollDomainSocketChannel.class).eventLoopGroup(group).usePlaintext().overrideAuthority("localhost")
                .withOption(ChannelOption.SO_KEEPALIVE, null).build();
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS).register(RegisterRequest.newBuilder()
                    .setVersion("v1beta1").setEndpoint("fake.sock").setResourceName(GPU).build());
        } finally {
            channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        }
        kubelet.watch(GPU).awaitUpdates(1, WAIT);
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        plugin.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void whileTheStreamIsOpenItsDevicesAreAllocatable() {
        assertThat(kubelet.resource(GPU)).contains(new NodeResource(Set.of("a", "b"), Set.of(), Optional.empty()));
    }

    @Test
    void aStreamThatEndsKeepsTheCapacityUnallocatableForFiveMinutes() throws Exception {
        stream.get(5, TimeUnit.SECONDS).onCompleted();
        kubelet.watch(GPU).awaitEnd(WAIT);

        assertThat(kubelet.resource(GPU)).contains(new NodeResource(Set.of(), Set.of("a", "b"), Optional.of(clock.instant())));
        clock.advance(Duration.ofMinutes(5));
        assertThat(kubelet.resource(GPU).map(NodeResource::capacity)).contains(2);
        clock.advance(Duration.ofMillis(1));
        assertThat(kubelet.resources()).isEmpty();
    }

    @Test
    void anEmptyListLeavesNoDeviceAtOnce() throws Exception {
        stream.get(5, TimeUnit.SECONDS).onNext(ListAndWatchResponse.getDefaultInstance());
        kubelet.watch(GPU).awaitUpdates(2, WAIT);

        assertThat(kubelet.resource(GPU)).contains(new NodeResource(Set.of(), Set.of(), Optional.empty()));
    }

    @Test
    void aStreamTheTestOpenedBesidesChangesNothing() throws Exception {
        Watch extra = kubelet.openWatch(GPU);
        extra.awaitUpdates(1, WAIT);
        extra.close();
        extra.awaitEnd(WAIT);

        assertThat(kubelet.resource(GPU)).contains(new NodeResource(Set.of("a", "b"), Set.of(), Optional.empty()));
    }
}
