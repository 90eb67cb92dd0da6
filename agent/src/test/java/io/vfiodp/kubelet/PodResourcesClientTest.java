package io.vfiodp.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.podresources.v1.ClaimResource;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.DynamicResource;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;
import io.vfiodp.vgpu.KubeletPodResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a fake kubelet PodResources server on a real unix socket. */
class PodResourcesClientTest {

    @TempDir Path tmp;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private Server server;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Path serve(PodResourcesListerGrpc.PodResourcesListerImplBase kubelet) throws IOException {
        Path socket = tmp.resolve("kubelet.sock");
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .addService(kubelet)
                .build()
                .start();
        return socket;
    }

    @Test
    void everyContainersDevicePluginDevicesAreListedWithTheirPodAndResource() throws IOException {
        Path socket = serve(KubeletPodResources.listing(ListPodResourcesResponse.newBuilder()
                .addPodResources(PodResources.newBuilder().setName("virt-launcher-vm1-abcde").setNamespace("vms")
                        .addContainers(ContainerResources.newBuilder().setName("compute")
                                .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/GRID_T4-1Q")
                                        .addDeviceIds("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27"))
                                .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/NVIDIA_L40S-4Q")
                                        .addDeviceIds("0000:41:00.4").addDeviceIds("0000:41:00.5"))))
                .build()));

        try (PodResourcesClient client = new PodResourcesClient(socket, Duration.ofSeconds(5))) {
            assertThat(client.read()).isEqualTo(new PodResourcesReading.Listed(List.of(
                    new HeldDevice.ByPlugin("vms/virt-launcher-vm1-abcde", "compute", "nvidia.com/GRID_T4-1Q", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27"),
                    new HeldDevice.ByPlugin("vms/virt-launcher-vm1-abcde", "compute", "nvidia.com/NVIDIA_L40S-4Q", "0000:41:00.4"),
                    new HeldDevice.ByPlugin("vms/virt-launcher-vm1-abcde", "compute", "nvidia.com/NVIDIA_L40S-4Q", "0000:41:00.5"))));
        }
    }

    @Test
    void theDevicesOfAContainersClaimsAreListedWithDriverPoolAndName() throws IOException {
        Path socket = serve(KubeletPodResources.listing(ListPodResourcesResponse.newBuilder()
                .addPodResources(PodResources.newBuilder().setName("virt-launcher-vm2-fghij").setNamespace("vms")
                        .addContainers(ContainerResources.newBuilder().setName("compute")
                                .addDynamicResources(DynamicResource.newBuilder().setClaimName("vm2-gpu").setClaimNamespace("vms")
                                        .addClaimResources(ClaimResource.newBuilder().setDriverName("vfio-device-plugin.io").setPoolName("node-a")
                                                .setDeviceName("pci-0000-b1-00-0")))))
                .build()));

        try (PodResourcesClient client = new PodResourcesClient(socket, Duration.ofSeconds(5))) {
            assertThat(client.read()).isEqualTo(new PodResourcesReading.Listed(List.of(new HeldDevice.ByClaim("vms/virt-launcher-vm2-fghij",
                    "compute", "vms/vm2-gpu", "vfio-device-plugin.io", "node-a", "pci-0000-b1-00-0"))));
        }
    }

    @Test
    void aMissingSocketIsUnreadableAndSaysWhatToMount() {
        try (PodResourcesClient client = new PodResourcesClient(tmp.resolve("absent.sock"), Duration.ofSeconds(5))) {
            assertThat(client.read()).isEqualTo(new PodResourcesReading.Unreadable(tmp.resolve("absent.sock")
                    + " does not exist (mount the kubelet's /var/lib/kubelet/pod-resources)"));
        }
    }

    @Test
    void anErrorFromTheKubeletIsUnreadableWithItsStatus() throws IOException {
        Path socket = serve(new PodResourcesListerGrpc.PodResourcesListerImplBase() {
            @Override
            public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> observer) {
                observer.onError(Status.UNAVAILABLE.withDescription("kubelet restarting").asRuntimeException());
            }
        });

        try (PodResourcesClient client = new PodResourcesClient(socket, Duration.ofSeconds(5))) {
            assertThat(client.read()).isEqualTo(new PodResourcesReading.Unreadable(
                    "PodResources List on " + socket + " failed: UNAVAILABLE kubelet restarting"));
        }
    }

    @Test
    void aSocketThatIsARegularFileIsUnreadableNamingTheFileAndWhatItIs() throws IOException {
        Path plain = Files.writeString(tmp.resolve("kubelet.sock"), "");

        try (PodResourcesClient client = new PodResourcesClient(plain, Duration.ofSeconds(5))) {
            assertThat(client.read()).isEqualTo(new PodResourcesReading.Unreadable(
                    "PodResources List failed: cannot connect to " + plain + ": it is a regular file, not a socket: no kubelet listens there"));
        }
    }
}
