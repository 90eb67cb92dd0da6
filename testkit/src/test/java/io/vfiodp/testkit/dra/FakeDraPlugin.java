package io.vfiodp.testkit.dra;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.DRAPluginGrpc;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesResponse;
import io.vfiodp.proto.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceIdentifier;
import io.vfiodp.proto.drahealth.v1alpha1.HealthStatus;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.vfiodp.proto.pluginregistration.v1.InfoRequest;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import io.vfiodp.proto.pluginregistration.v1.RegistrationGrpc;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatusResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A DRA driver's kubelet plugin as small as the kubelet lets it be: the registration service on
 * its registration socket answering {@code info}, and on its endpoint the DRA node services v1 and
 * v1beta1 (each claim prepared as device {@code dev-<uid>} of pool {@code pool}) and the health
 * service (one list: {@code pool/dev-0} healthy). It records what the kubelet told it and which
 * service version each call came through.
 */
final class FakeDraPlugin implements AutoCloseable {

    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final List<Server> servers = new ArrayList<>();
    private final List<RegistrationStatus> statuses = new ArrayList<>();
    /** The UID of a claim the v1 service refuses to prepare. */
    static final String REFUSED = "uid-refused";

    private final List<String> calls = new ArrayList<>();

    private FakeDraPlugin() {}

    /** Serves registration on {@code registrationSocket} answering {@code info}, and the node services on {@code endpoint}. */
    static FakeDraPlugin start(Path registrationSocket, Path endpoint, PluginInfo info) throws IOException, InterruptedException {
        FakeDraPlugin plugin = new FakeDraPlugin();
        try {
            plugin.serve(registrationSocket, plugin.registration(info));
            plugin.serve(endpoint, plugin.v1(), plugin.v1beta1(), plugin.health());
        } catch (IOException | RuntimeException e) {
            plugin.close();
            throw e;
        }
        return plugin;
    }

    static PluginInfo info(Path endpoint, String... services) {
        return PluginInfo.newBuilder().setType("DRAPlugin").setName("fake.example.com").setEndpoint(endpoint.toString())
                .addAllSupportedVersions(List.of(services)).build();
    }

    /** What the kubelet answered with NotifyRegistrationStatus, in order. */
    synchronized List<RegistrationStatus> statuses() {
        return List.copyOf(statuses);
    }

    /** The node service calls received, as {@code service method}, in order. */
    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    private synchronized void record(String call) {
        calls.add(call);
    }

    private void serve(Path socket, BindableService... services) throws IOException {
        NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null).directExecutor();
        for (BindableService s : services) b.addService(s);
        servers.add(b.build().start());
    }

    private BindableService registration(PluginInfo info) {
        return new RegistrationGrpc.RegistrationImplBase() {
            @Override
            public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
                response.onNext(info);
                response.onCompleted();
            }

            @Override
            public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
                synchronized (FakeDraPlugin.this) {
                    statuses.add(status);
                }
                response.onNext(RegistrationStatusResponse.getDefaultInstance());
                response.onCompleted();
            }
        };
    }

    private BindableService v1() {
        return new DRAPluginGrpc.DRAPluginImplBase() {
            @Override
            public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
                record("v1.DRAPlugin NodePrepareResources");
                NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
                for (Claim c : request.getClaimsList()) {
                    if (c.getUid().equals(REFUSED)) {
                        out.putClaims(c.getUid(), NodePrepareResourceResponse.newBuilder().setError("claim " + c.getName() + " refused").build());
                        continue;
                    }
                    out.putClaims(c.getUid(), NodePrepareResourceResponse.newBuilder().addDevices(Device.newBuilder().addRequestNames("gpu")
                            .setPoolName("pool").setDeviceName("dev-" + c.getUid()).addCdiDeviceIds("fake.example.com/vfio=" + c.getUid())).build());
                }
                response.onNext(out.build());
                response.onCompleted();
            }

            @Override
            public void nodeUnprepareResources(NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> response) {
                record("v1.DRAPlugin NodeUnprepareResources");
                NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
                for (Claim c : request.getClaimsList()) out.putClaims(c.getUid(), NodeUnprepareResourceResponse.getDefaultInstance());
                response.onNext(out.build());
                response.onCompleted();
            }
        };
    }

    private BindableService v1beta1() {
        return new io.vfiodp.proto.dra.v1beta1.DRAPluginGrpc.DRAPluginImplBase() {
            @Override
            public void nodePrepareResources(io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesRequest request,
                                             StreamObserver<io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesResponse> response) {
                record("v1beta1.DRAPlugin NodePrepareResources");
                var out = io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesResponse.newBuilder();
                for (var c : request.getClaimsList()) {
                    out.putClaims(c.getUid(), io.vfiodp.proto.dra.v1beta1.NodePrepareResourceResponse.newBuilder()
                            .addDevices(io.vfiodp.proto.dra.v1beta1.Device.newBuilder().addRequestNames("gpu").setPoolName("pool")
                                    .setDeviceName("dev-" + c.getUid()).addCdiDeviceIds("fake.example.com/vfio=" + c.getUid())).build());
                }
                response.onNext(out.build());
                response.onCompleted();
            }

            @Override
            public void nodeUnprepareResources(io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesRequest request,
                                               StreamObserver<io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesResponse> response) {
                record("v1beta1.DRAPlugin NodeUnprepareResources");
                var out = io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesResponse.newBuilder();
                for (var c : request.getClaimsList()) {
                    out.putClaims(c.getUid(), io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourceResponse.newBuilder().setError("busy").build());
                }
                response.onNext(out.build());
                response.onCompleted();
            }
        };
    }

    private BindableService health() {
        return new DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
            @Override
            public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
                response.onNext(NodeWatchResourcesResponse.newBuilder().addDevices(DeviceHealth.newBuilder()
                        .setDevice(DeviceIdentifier.newBuilder().setPoolName("pool").setDeviceName("dev-0")).setHealth(HealthStatus.HEALTHY)).build());
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        for (Server s : servers) s.shutdownNow();
        for (Server s : servers) s.awaitTermination(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
