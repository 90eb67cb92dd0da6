package io.vfiodp.testkit.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.time.Duration;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator enforces what the kubelet enforces, so passing against it means something. */
class KubeletSimulatorTest {

    /** What any wait here allows: generous for a loaded machine, as a passing test waits only as long as it takes. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path dir;
    private EpollEventLoopGroup group;
    private KubeletSimulator kubelet;
    private Server plugin;
    private final AtomicInteger optionsCalls = new AtomicInteger();
    private volatile CountDownLatch holdOptions = new CountDownLatch(0);

    @BeforeEach
    void start() throws Exception {
        group = new EpollEventLoopGroup(1);
        kubelet = KubeletSimulator.start(dir);
        plugin = NettyServerBuilder.forAddress(new DomainSocketAddress(dir.resolve("fake.sock").toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .addService(new DevicePluginGrpc.DevicePluginImplBase() {
                    @Override
                    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
                        optionsCalls.incrementAndGet();
                        try {
                            holdOptions.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        response.onNext(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build());
                        response.onCompleted();
                    }

                    @Override
                    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
                        response.onNext(ListAndWatchResponse.getDefaultInstance());
                    }
                })
                .build().start();
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        plugin.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private void register(String version, String endpoint, String resource) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(dir.resolve("kubelet.sock").toString()))
                .channelType(EpollDomainSocketChannel.class).eventLoopGroup(group).usePlaintext().overrideAuthority("localhost")
                .withOption(ChannelOption.SO_KEEPALIVE, null).build();
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(WAIT.toSeconds(), TimeUnit.SECONDS).register(RegisterRequest.newBuilder()
                    .setVersion(version).setEndpoint(endpoint).setResourceName(resource).build());
        } finally {
            channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    private void assertRefused(String version, String endpoint, String resource, String message) {
        assertThatThrownBy(() -> register(version, endpoint, resource)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).isEqualTo(message);
        });
        assertThat(kubelet.registrations()).isEmpty();
        assertThat(kubelet.rejections()).containsExactly(message);
    }

    @Test
    void registerCallsGetDevicePluginOptionsOnThePluginBeforeItAnswers() throws Exception {
        register("v1beta1", "fake.sock", "example.com/gpu");

        assertThat(optionsCalls.get()).isEqualTo(1);
        assertThat(kubelet.registrations()).singleElement().satisfies(r -> {
            assertThat(r.resourceName()).isEqualTo("example.com/gpu");
            assertThat(r.endpoint()).isEqualTo("fake.sock");
            assertThat(r.options().getGetPreferredAllocationAvailable()).isTrue();
        });
    }

    @Test
    void registrationOpensListAndWatch() throws Exception {
        register("v1beta1", "fake.sock", "example.com/gpu");

        assertThat(kubelet.watch("example.com/gpu").awaitUpdate(u -> true, WAIT).getDevicesCount()).isZero();
    }

    @Test
    void otherApiVersionIsRefused() {
        assertRefused("v1alpha", "fake.sock", "example.com/gpu",
                "Unsupported device plugin API version 'v1alpha' from example.com/gpu, expected v1beta1");
    }

    @Test
    void resourceNameThatIsNoExtendedResourceNameIsRefused() {
        assertRefused("v1beta1", "fake.sock", "nvidia.com/GA100_",
                "invalid resource name: resource name 'nvidia.com/GA100_': name part must consist of alphanumeric characters, '-', '_' or"
                        + " '.', and must start and end with an alphanumeric character");
    }

    @Test
    void endpointOutsideTheDirectoryIsRefused() {
        assertRefused("v1beta1", "../fake.sock", "example.com/gpu",
                "endpoint '../fake.sock' of example.com/gpu must be a socket file name in " + dir);
    }

    @Test
    void endpointThatIsNotASocketIsRefused() throws Exception {
        Files.writeString(dir.resolve("plain.sock"), "");

        assertRefused("v1beta1", "plain.sock", "example.com/gpu",
                "endpoint " + dir.resolve("plain.sock") + " of example.com/gpu is not a unix socket");
    }

    @Test
    void restartDeletesEverySocketAndCreatesKubeletSockAgain() throws Exception {
        try (WatchService watch = dir.getFileSystem().newWatchService()) {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);

            kubelet.restart();

            // restart() has made every change when it returns: the kernel has queued all their events
            List<String> events = new ArrayList<>();
            await().atMost(WAIT).untilAsserted(() -> {
                for (WatchKey key; (key = watch.poll()) != null; key.reset()) {
                    for (WatchEvent<?> e : key.pollEvents()) events.add(e.kind().name() + " " + e.context());
                }
                assertThat(events).containsExactlyInAnyOrder("ENTRY_DELETE kubelet.sock", "ENTRY_DELETE fake.sock", "ENTRY_CREATE kubelet.sock");
            });
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).isEqualTo(List.of("kubelet.sock"));
        }
    }

    @Test
    void registrationTheKubeletWasStillCheckingWhenItRestartedIsNotKeptByTheNewKubelet() throws Exception {
        holdOptions = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
            try {
                register("v1beta1", "fake.sock", "example.com/gpu");
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        await().atMost(WAIT).untilAsserted(() -> assertThat(optionsCalls.get()).as("the kubelet is dialling the plugin back").isEqualTo(1));

        kubelet.restart();
        holdOptions.countDown();

        assertThat(call).failsWithin(WAIT);
        assertThat(kubelet.registrationsSinceRestart()).isEmpty();
        assertThatThrownBy(() -> kubelet.watch("example.com/gpu")).isInstanceOf(IllegalStateException.class);
        assertThat(kubelet.rejections()).isEmpty();
    }

    @Test
    void registrationsSinceRestartLeaveOutWhatTheKubeletAcceptedBeforeItRestarted() throws Exception {
        register("v1beta1", "fake.sock", "example.com/gpu");
        assertThat(kubelet.registrationsSinceRestart()).extracting(KubeletSimulator.Registration::resourceName).containsExactly("example.com/gpu");

        kubelet.restart();

        assertThat(kubelet.registrationsSinceRestart()).isEmpty();
        assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::resourceName).containsExactly("example.com/gpu");
    }
}
