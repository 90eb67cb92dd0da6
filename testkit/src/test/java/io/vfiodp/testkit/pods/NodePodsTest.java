package io.vfiodp.testkit.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;
import io.vfiodp.testkit.UnixSockets;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pods admitted through a device plugin hold their devices until they end, and the PodResources
 * server lists them as the kubelet's does. The plugin here lists {@code a}, {@code b} and
 * {@code c} and refuses to allocate {@code c}.
 */
class NodePodsTest {

    static final String GPU = "example.com/gpu";

    @TempDir Path dir;
    EpollEventLoopGroup group;
    KubeletSimulator kubelet;
    Server plugin;
    final NodePods pods = new NodePods();

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
                        response.onNext(DevicePluginOptions.getDefaultInstance());
                        response.onCompleted();
                    }

                    @Override
                    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
                        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
                        for (String id : List.of("a", "b", "c")) b.addDevices(Device.newBuilder().setID(id).setHealth("Healthy"));
                        response.onNext(b.build());
                    }

                    @Override
                    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
                        if (request.getContainerRequests(0).getDevicesIdsList().contains("c")) {
                            response.onError(Status.INVALID_ARGUMENT.withDescription("c is broken").asRuntimeException());
                            return;
                        }
                        response.onNext(AllocateResponse.newBuilder().addContainerResponses(ContainerAllocateResponse.newBuilder()
                                .putEnvs("GPUS", String.join(",", request.getContainerRequests(0).getDevicesIdsList()))).build());
                        response.onCompleted();
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
        kubelet.watch(GPU).awaitUpdates(1, Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        plugin.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void anAdmittedPodGetsTheFirstAllocatableDevicesAndTheirAllocateAnswer() {
        NodePods.Admission a = pods.admit(kubelet, "vms", "vm1", GPU, 2);

        assertThat(a).isInstanceOfSatisfying(NodePods.Admission.Admitted.class, admitted -> {
            assertThat(admitted.devices()).containsExactly("a", "b");
            assertThat(admitted.response().getContainerResponses(0).getEnvsMap()).containsEntry("GPUS", "a,b");
        });
        assertThat(pods.pluginHeld()).containsExactly("a", "b");
    }

    @Test
    void aDeviceAPodHoldsIsNotGivenToTheNext() {
        pods.admit(kubelet, "vms", "vm1", GPU, 1);

        assertThat(pods.admit(kubelet, "vms", "vm2", GPU, 1)).isEqualTo(new NodePods.Admission.Admitted(List.of("b"),
                kubelet.allocate(GPU, List.of(List.of("b")))));
        assertThat(pods.pluginHeld()).containsExactly("a", "b");
    }

    @Test
    void tooFewAllocatableDevicesRefuseThePod() {
        assertThat(pods.admit(kubelet, "vms", "vm1", GPU, 4))
                .isEqualTo(new NodePods.Admission.Refused("Insufficient example.com/gpu: 3 allocatable, 4 asked"));
        assertThat(pods.running()).isEmpty();
    }

    @Test
    void anAllocateThePluginRefusesLeavesThePodOut() {
        pods.admit(kubelet, "vms", "vm1", GPU, 2);

        assertThat(pods.admit(kubelet, "vms", "vm2", GPU, 1)).isInstanceOfSatisfying(NodePods.Admission.Refused.class,
                r -> assertThat(r.reason()).startsWith("Allocate example.com/gpu [c]: Status{code=INVALID_ARGUMENT, description=c is broken"));
        assertThat(pods.running()).containsExactly("vms/vm1");
    }

    @Test
    void aPodThatEndsLetsGoOfItsDevices() {
        pods.admit(kubelet, "vms", "vm1", GPU, 2);

        assertThat(pods.end("vms", "vm1", Optional.empty())).isEmpty();
        assertThat(pods.pluginHeld()).isEmpty();
        assertThat(pods.admit(kubelet, "vms", "vm2", GPU, 2)).isInstanceOf(NodePods.Admission.Admitted.class);
    }

    @Test
    void aPodKeepsItsDevicesAcrossAKubeletRestart() throws Exception {
        pods.admit(kubelet, "vms", "vm1", GPU, 1);
        kubelet.restart();

        assertThat(pods.pluginHeld()).isEqualTo(Set.of("a"));
    }

    @Test
    void thePodResourcesServerListsEachPodsDevicesByResource() throws Exception {
        pods.admit(kubelet, "vms", "vm1", GPU, 2);
        var callbacks = Executors.newSingleThreadExecutor();
        try (PodResourcesServer server = PodResourcesServer.start(dir.resolve("pod-resources.sock"), pods::list)) {
            ManagedChannel channel = UnixSockets.dial(server.socket(), group, callbacks);
            try {
                ListPodResourcesResponse listed = PodResourcesListerGrpc.newBlockingStub(channel).list(ListPodResourcesRequest.getDefaultInstance());
                assertThat(listed).isEqualTo(ListPodResourcesResponse.newBuilder().addPodResources(PodResources.newBuilder().setNamespace("vms")
                        .setName("vm1").addContainers(ContainerResources.newBuilder().setName("compute").addDevices(ContainerDevices.newBuilder()
                                .setResourceName(GPU).addDeviceIds("a").addDeviceIds("b")))).build());
                server.unavailable(true);
                assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(io.grpc.StatusRuntimeException.class,
                        () -> PodResourcesListerGrpc.newBlockingStub(channel).list(ListPodResourcesRequest.getDefaultInstance())).getStatus().getCode())
                        .isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(server.lists()).isEqualTo(2);
            } finally {
                channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
                callbacks.shutdown();
            }
        }
    }

    @Test
    void aPodWithTwoGpuContainersGetsAnAllocateEachAndIsListedContainerByContainer() {
        NodePods.Admission a = pods.admit(kubelet, "vms", "vm1", List.of(NodePods.ContainerAsk.of("compute", GPU, 1),
                NodePods.ContainerAsk.of("sidecar", GPU, 1)));

        assertThat(a).isInstanceOfSatisfying(NodePods.Admission.Admitted.class, admitted -> {
            assertThat(admitted.devices()).containsExactly("a", "b");
            assertThat(admitted.response().getContainerResponsesList()).extracting(r -> r.getEnvsMap().get("GPUS")).containsExactly("a", "b");
        });
        assertThat(pods.list().getPodResources(0).getContainersList()).containsExactly(
                ContainerResources.newBuilder().setName("compute").addDevices(ContainerDevices.newBuilder().setResourceName(GPU).addDeviceIds("a")).build(),
                ContainerResources.newBuilder().setName("sidecar").addDevices(ContainerDevices.newBuilder().setResourceName(GPU).addDeviceIds("b")).build());
    }

    @Test
    void aPodWhoseSecondContainerIsRefusedDoesNotRunAndHoldsNothing() {
        NodePods.Admission a = pods.admit(kubelet, "vms", "vm1", List.of(NodePods.ContainerAsk.named("compute", GPU, List.of("a")),
                NodePods.ContainerAsk.named("sidecar", GPU, List.of("c"))));

        assertThat(a).isInstanceOf(NodePods.Admission.Refused.class);
        assertThat(pods.running()).isEmpty();
        assertThat(pods.pluginHeld()).isEmpty();
    }

    @Test
    void namedDevicesAreAllocatedAsNamedOrRefusedWhenAPodHoldsThem() {
        assertThat(pods.admit(kubelet, "vms", "vm1", List.of(NodePods.ContainerAsk.named("compute", GPU, List.of("b")))))
                .isInstanceOfSatisfying(NodePods.Admission.Admitted.class, admitted -> assertThat(admitted.devices()).containsExactly("b"));

        assertThat(pods.admit(kubelet, "vms", "vm2", List.of(NodePods.ContainerAsk.named("compute", GPU, List.of("b")))))
                .isInstanceOf(NodePods.Admission.Refused.class);
    }

    @Test
    void aStalledPodResourcesServerLeavesTheCallerToItsDeadlineThenAnswersAgain() throws Exception {
        var callbacks = Executors.newSingleThreadExecutor();
        try (PodResourcesServer server = PodResourcesServer.start(dir.resolve("pod-resources.sock"), pods::list)) {
            ManagedChannel channel = UnixSockets.dial(server.socket(), group, callbacks);
            try {
                server.stall(true);
                assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(io.grpc.StatusRuntimeException.class,
                        () -> PodResourcesListerGrpc.newBlockingStub(channel).withDeadlineAfter(200, TimeUnit.MILLISECONDS)
                                .list(ListPodResourcesRequest.getDefaultInstance())).getStatus().getCode())
                        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
                server.stall(false);
                assertThat(PodResourcesListerGrpc.newBlockingStub(channel).list(ListPodResourcesRequest.getDefaultInstance()))
                        .isEqualTo(ListPodResourcesResponse.getDefaultInstance());
            } finally {
                channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
                callbacks.shutdown();
            }
        }
    }
}
