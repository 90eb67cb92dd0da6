package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.ServedPlugins;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.policy.config.LocalConfig;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.vgpu.KernelFake;
import io.vfiodp.vgpu.KubeletPodResources;
import io.vfiodp.vgpu.LayoutEvents;
import io.vfiodp.vgpu.LayoutExecutor;
import io.vfiodp.vgpu.LayoutManager;
import io.vfiodp.vgpu.LayoutPlanner;
import io.vfiodp.vgpu.KubeletAllocations;
import io.vfiodp.vgpu.StateFile;
import io.vfiodp.vgpu.VgpuLayoutPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --manage-vgpus} end to end on a copied t4-vgpu node: the layout is made through the
 * fake kernel, and the device servers list the new vGPUs through the same reconcile loop; the
 * kubelet's PodResources (a fake on a real unix socket) keeps an allocated vGPU alive.
 */
class ManagedServeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String ALLOCATED = "00000000-0000-4000-8000-000000000001";

    @TempDir Path tmp;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private Server podResources;
    private KubeletSimulator kubelet;
    private ServedPlugins runtime;
    private PodResourcesClient client;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) runtime.close();
        if (kubelet != null) kubelet.close();
        if (client != null) client.close();
        if (podResources != null) podResources.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private int listed(String resource, int expected) throws Exception {
        return kubelet.watch(resource).awaitUpdate(u -> u.getDevicesCount() == expected, WAIT).getDevicesCount();
    }

    @Test
    void createdVgpusAreListedAndAnAllocatedOneSurvivesAConfigChange() throws Exception {
        Path node = tmp.resolve("node");
        Trees.copy(SysfsFixtures.committedRoot().resolve("t4-vgpu"), node);
        KernelFake kernel = new KernelFake(node.resolve("sys"), node.resolve("dev"));
        Path config = Files.writeString(tmp.resolve("config.yaml"), "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [GRID_T4-1Q, GRID_T4-2Q]\n");
        Path socket = tmp.resolve("pod-resources.sock");
        podResources = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(KubeletPodResources.listing(ListPodResourcesResponse.newBuilder()
                        .addPodResources(PodResources.newBuilder().setName("virt-launcher-vm1").setNamespace("vms")
                                .addContainers(ContainerResources.newBuilder().setName("compute")
                                        .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/GRID_T4-1Q").addDeviceIds(ALLOCATED))))
                        .build()))
                .build().start();
        client = new PodResourcesClient(socket, Duration.ofSeconds(5));
        SysfsScanner scanner = new SysfsScanner(node.resolve("sys"), node.resolve("dev"));
        StateFile state = new StateFile(tmp.resolve("state"));
        AtomicInteger uuid = new AtomicInteger();
        LayoutManager manager = new LayoutManager(scanner::scan, new KubeletAllocations(client::read),
                new LayoutPlanner(() -> String.format("00000000-0000-4000-8000-%012d", uuid.incrementAndGet())),
                new LayoutExecutor(node.resolve("sys"), kernel, state, LayoutEvents.NONE), state, LayoutEvents.NONE);
        NodePass source = new NodePass(LocalConfig.of(Optional.of(config)), Optional.of(new VgpuLayoutPhase(manager)),
                new ScanPolicySource(scanner::scan, Optional.of(config), PciIds.bundled()), Optional.empty(), new ServingMetrics(new PrometheusRegistry(), "test",
                Clock.systemUTC()), System::nanoTime, Optional.empty(), wanted -> { });
        kubelet = KubeletSimulator.start(Files.createDirectories(tmp.resolve("plugins")));

        runtime = ServedPlugins.start(PluginSettings.of(tmp.resolve("plugins")), Duration.ofHours(1), source);
        kubelet.awaitRegistrations(List.of("nvidia.com/GRID_T4-1Q", "nvidia.com/GRID_T4-2Q"), 1, WAIT);

        assertThat(listed("nvidia.com/GRID_T4-1Q", 16)).isEqualTo(16);
        assertThat(listed("nvidia.com/GRID_T4-2Q", 8)).isEqualTo(8);

        Files.writeString(config, "mediatedDevicesConfiguration:\n  mediatedDeviceTypes: [GRID_T4-2Q]\n");
        runtime.rescanNow();

        // The twelve removed instances of ours are listed Unhealthy for one pass (the kubelet stops
        // handing them out at once), then go at the next rescan; the three foreign instances and the
        // allocated one of ours stay.
        ListAndWatchResponse departing = kubelet.watch("nvidia.com/GRID_T4-1Q")
                .awaitUpdate(u -> u.getDevicesList().stream().filter(d -> d.getHealth().equals("Unhealthy")).count() == 12, WAIT);
        assertThat(departing.getDevicesCount()).isEqualTo(16);
        runtime.rescanNow();
        assertThat(listed("nvidia.com/GRID_T4-1Q", 4)).isEqualTo(4);
        assertThat(kubelet.latest("nvidia.com/GRID_T4-1Q").orElseThrow().getDevicesList().stream().map(d -> d.getID()).toList())
                .contains(ALLOCATED);
        assertThat(state.read().mdevs()).contains(ALLOCATED).hasSize(1 + 6);
        assertThat(kernel.writes).hasSize(13 + 6 + 12);
    }
}
