package io.vfiodp.bench.floor;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.buffer.UnpooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * ServeBench's floor: about the least a device plugin on grpc-java can be, to set our figures
 * beside. One resource: the PCI functions of one vendor:device bound to vfio-pci, read once at
 * start (a directory listing, two attribute reads and two links per function). It serves
 * ListAndWatch (one list, all healthy, the stream held open) and Allocate (the container gets
 * {@code /dev/vfio/vfio} and each device's group node, and the IDs in one env var), registers once
 * with {@code kubelet.sock}, and on SIGTERM stops and removes its socket. Nothing else: no health,
 * no re-registration after a kubelet restart, no configuration, no metrics, no logging.
 *
 * <p>It uses only grpc-java, protobuf and the kubelet API's stubs, on the transport settings a
 * careful author would pick for a unix socket (one epoll event loop, handlers on it, unpooled
 * buffers); ServeBench runs it on the image's runtime with the shipped JVM flags.
 *
 * <p>Usage: {@code FloorPlugin DEVICE_PLUGIN_DIR SYSFS_ROOT RESOURCE VENDOR:DEVICE} (hex IDs, e.g. {@code 10de:1eb8}).
 */
public final class FloorPlugin {

    static final String SOCKET = "vfio-floor.sock";

    /** ID → IOMMU group number of every device served. */
    private final Map<String, String> groups;
    private final String env;

    FloorPlugin(Map<String, String> groups, String resource) {
        this.groups = Map.copyOf(groups);
        this.env = "PCI_RESOURCE_" + resource.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !args[3].matches("[0-9a-fA-F]{4}:[0-9a-fA-F]{4}")) {
            System.err.println("usage: FloorPlugin DEVICE_PLUGIN_DIR SYSFS_ROOT RESOURCE VENDOR:DEVICE");
            System.exit(64);
        }
        Path dir = Path.of(args[0]);
        String resource = args[2];
        FloorPlugin plugin = new FloorPlugin(scan(Path.of(args[1]), args[3]), resource);
        EpollEventLoopGroup group = new EpollEventLoopGroup(1);
        Path socket = dir.resolve(SOCKET);
        Files.deleteIfExists(socket);
        Server server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group).workerEventLoopGroup(group).directExecutor()
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                .withChildOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                .addService(plugin.service())
                .build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdownNow();
            try {
                server.awaitTermination(2, TimeUnit.SECONDS);
                Files.deleteIfExists(socket);
            } catch (InterruptedException | IOException e) {
                // the process is ending either way
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }));
        register(dir.resolve("kubelet.sock"), group, resource);
        server.awaitTermination();
    }

    /** The functions of {@code vendorDevice} on vfio-pci under {@code sys}, each with its IOMMU group. */
    static Map<String, String> scan(Path sys, String vendorDevice) throws IOException {
        String vendor = "0x" + vendorDevice.substring(0, 4).toLowerCase(java.util.Locale.ROOT);
        String device = "0x" + vendorDevice.substring(5).toLowerCase(java.util.Locale.ROOT);
        Map<String, String> found = new TreeMap<>();
        try (DirectoryStream<Path> functions = Files.newDirectoryStream(sys.resolve("bus/pci/devices"))) {
            for (Path f : functions) {
                if (!Files.readString(f.resolve("vendor")).trim().equals(vendor)
                        || !Files.readString(f.resolve("device")).trim().equals(device)) continue;
                Path driver = f.resolve("driver");
                if (!Files.isSymbolicLink(driver) || !Files.readSymbolicLink(driver).getFileName().toString().equals("vfio-pci")) continue;
                found.put(f.getFileName().toString(), Files.readSymbolicLink(f.resolve("iommu_group")).getFileName().toString());
            }
        }
        return found;
    }

    private static void register(Path kubelet, EpollEventLoopGroup group, String resource) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(kubelet.toString()))
                .channelType(EpollDomainSocketChannel.class).eventLoopGroup(group).directExecutor().usePlaintext()
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .withOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT)
                .overrideAuthority("localhost").build();
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).register(RegisterRequest.newBuilder()
                    .setVersion("v1beta1").setEndpoint(SOCKET).setResourceName(resource).build());
        } finally {
            channel.shutdownNow();
        }
    }

    DevicePluginGrpc.DevicePluginImplBase service() {
        return new DevicePluginGrpc.DevicePluginImplBase() {
            @Override
            public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
                response.onNext(DevicePluginOptions.getDefaultInstance());
                response.onCompleted();
            }

            @Override
            public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
                response.onNext(list());
            }

            @Override
            public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
                try {
                    response.onNext(FloorPlugin.this.allocate(request));
                    response.onCompleted();
                } catch (IllegalArgumentException e) {
                    response.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
                }
            }
        };
    }

    ListAndWatchResponse list() {
        ListAndWatchResponse.Builder list = ListAndWatchResponse.newBuilder();
        for (String id : new TreeMap<>(groups).keySet()) list.addDevices(Device.newBuilder().setID(id).setHealth("Healthy"));
        return list.build();
    }

    /** Each container gets {@code /dev/vfio/vfio}, its devices' group nodes (each once) and their IDs; an unknown ID refuses the call. */
    AllocateResponse allocate(AllocateRequest request) {
        AllocateResponse.Builder answer = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
            ContainerAllocateResponse.Builder container = ContainerAllocateResponse.newBuilder()
                    .addDevices(DeviceSpec.newBuilder().setContainerPath("/dev/vfio/vfio").setHostPath("/dev/vfio/vfio").setPermissions("rw"));
            java.util.Set<String> nodes = new java.util.LinkedHashSet<>();
            for (String id : c.getDevicesIdsList()) {
                String group = groups.get(id);
                if (group == null) throw new IllegalArgumentException("no device " + id);
                nodes.add("/dev/vfio/" + group);
            }
            for (String node : nodes) container.addDevices(DeviceSpec.newBuilder().setContainerPath(node).setHostPath(node).setPermissions("rw"));
            answer.addContainerResponses(container.putEnvs(env, String.join(",", c.getDevicesIdsList())));
        }
        return answer.build();
    }
}
