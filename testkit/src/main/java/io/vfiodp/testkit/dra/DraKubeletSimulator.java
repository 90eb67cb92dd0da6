package io.vfiodp.testkit.dra;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
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
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.vfiodp.proto.pluginregistration.v1.InfoRequest;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import io.vfiodp.proto.pluginregistration.v1.RegistrationGrpc;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.testkit.UnixSockets;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A kubelet, as far as a DRA driver can tell. Its plugin watcher: finds the registration sockets in
 * {@code plugins_registry} (unix sockets whose names do not start with a dot), calls {@code GetInfo},
 * checks the answer as {@code DRAPluginManager.ValidatePlugin} does (type {@code DRAPlugin}, a
 * node service it knows, the first it knows being chosen), and answers with
 * {@code NotifyRegistrationStatus}. Its DRA manager: prepares and unprepares claims through the chosen
 * service (v1 or v1beta1), and keeps the {@code NodeWatchResources} stream open when the plugin lists
 * the health service, recording every list. {@link #restart()} behaves like a kubelet restart: every
 * connection goes, then the directory is walked again (the kubelet leaves plugin sockets in place).
 * For a pod with extended resources backed by DRA ({@link ExtendedResourceScheduler} plays the
 * scheduler's part), it prepares the special claim and maps its CDI devices to the containers as
 * the kubelet does ({@link #prepareExtendedResources}, {@link #cdiDevices}); {@link CdiRuntime}
 * then applies them as a container runtime would.
 *
 * <p>The kit's README says which of the kubelet's rules it enforces and where the kubelet does the same.
 */
public final class DraKubeletSimulator implements AutoCloseable {

    /** The node services a kubelet 1.34 to 1.36 knows, in its order of preference. */
    public static final List<String> KUBELET_136 = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");
    /** A kubelet 1.32 or 1.33: v1beta1 only. */
    public static final List<String> KUBELET_133 = List.of("v1beta1.DRAPlugin");

    private final Path registryDir;
    private final List<String> services;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory("dra-kubelet-sim-epoll", true));
    // Callbacks of our connections to the plugin; grpc's shared pool would keep its threads a minute after close().
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(new DefaultThreadFactory("dra-kubelet-sim", true));
    private final List<NodeWatchResourcesResponse> healthUpdates = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private Registered plugin;

    /** A plugin the kubelet took: its answer to GetInfo and the node service it chose. */
    public record Registered(Path socket, PluginInfo info, String service, ManagedChannel channel) {}

    /**
     * @param registryDir the kubelet's {@code plugins_registry}
     * @param services    the node services this kubelet knows, preferred first
     */
    public DraKubeletSimulator(Path registryDir, List<String> services) {
        this.registryDir = registryDir;
        this.services = List.copyOf(services);
    }

    /** The registration sockets the plugin watcher would see now. */
    public List<Path> registrationSockets() throws IOException {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(registryDir)) return out;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(registryDir)) {
            for (Path p : ds) if (!p.getFileName().toString().startsWith(".") && isSocket(p)) out.add(p);
        }
        return out;
    }

    /**
     * Registers the plugin whose registration socket is {@code socket}, as the plugin watcher does.
     *
     * @throws IllegalStateException with the kubelet's reason when it refuses the plugin (after telling it)
     */
    public synchronized Registered register(Path socket) {
        ManagedChannel reg = channel(socket);
        try {
            var stub = RegistrationGrpc.newBlockingStub(reg).withDeadlineAfter(5, TimeUnit.SECONDS);
            PluginInfo info = stub.getInfo(InfoRequest.getDefaultInstance());
            Optional<String> refusal = validate(info);
            stub.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(refusal.isEmpty()).setError(refusal.orElse("")).build());
            if (refusal.isPresent()) throw new IllegalStateException(refusal.get());
            String chosen = info.getSupportedVersionsList().stream().filter(services::contains).findFirst().orElseThrow();
            Registered r = new Registered(socket, info, chosen, channel(Path.of(info.getEndpoint())));
            plugin = r;
            if (info.getSupportedVersionsList().contains("v1alpha1.DRAResourceHealth")) watchHealth(r.channel());
            return r;
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == io.grpc.Status.Code.UNKNOWN && e.getStatus().getDescription() != null
                    && e.getStatus().getDescription().startsWith("failed registration")) {
                throw new IllegalStateException(e.getStatus().getDescription(), e);
            }
            throw e;
        } finally {
            reg.shutdownNow();
        }
    }

    private Optional<String> validate(PluginInfo info) {
        if (!info.getType().equals("DRAPlugin")) return Optional.of("plugin type " + info.getType() + " is not DRAPlugin");
        if (info.getSupportedVersionsList().isEmpty()) return Optional.of("empty list of supported gRPC services (aka supported versions)");
        if (info.getSupportedVersionsList().stream().noneMatch(services::contains)) {
            return Optional.of("none of services supported by the plugin (" + info.getSupportedVersionsList() + ") are supported by the kubelet (" + services + ")");
        }
        if (!Path.of(info.getEndpoint()).isAbsolute()) return Optional.of("endpoint " + info.getEndpoint() + " is not an absolute path");
        return Optional.empty();
    }

    private void watchHealth(ManagedChannel channel) {
        DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance(), new StreamObserver<>() {
            @Override public void onNext(NodeWatchResourcesResponse value) {
                synchronized (DraKubeletSimulator.this) {
                    healthUpdates.add(value);
                }
            }

            @Override public void onError(Throwable t) {}

            @Override public void onCompleted() {}
        });
    }

    /** Every device list the health stream brought, oldest first. */
    public synchronized List<NodeWatchResourcesResponse> healthUpdates() {
        return List.copyOf(healthUpdates);
    }

    public synchronized Registered plugin() {
        if (plugin == null) throw new IllegalStateException("no plugin registered");
        return plugin;
    }

    public NodePrepareResourcesResponse prepare(Claim... claims) {
        Registered p = plugin();
        if (p.service().equals("v1.DRAPlugin")) {
            return v1(p).nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addAllClaims(List.of(claims)).build());
        }
        var answer = v1beta1(p).nodePrepareResources(io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
                .addAllClaims(v1beta1(claims)).build());
        NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
        answer.getClaimsMap().forEach((uid, c) -> {
            NodePrepareResourceResponse.Builder r = NodePrepareResourceResponse.newBuilder().setError(c.getError());
            for (var d : c.getDevicesList()) {
                r.addDevices(Device.newBuilder().addAllRequestNames(d.getRequestNamesList()).setPoolName(d.getPoolName())
                        .setDeviceName(d.getDeviceName()).addAllCdiDeviceIds(d.getCdiDeviceIdsList()));
            }
            out.putClaims(uid, r.build());
        });
        return out.build();
    }

    public NodeUnprepareResourcesResponse unprepare(Claim... claims) {
        Registered p = plugin();
        if (p.service().equals("v1.DRAPlugin")) {
            return v1(p).nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder().addAllClaims(List.of(claims)).build());
        }
        var answer = v1beta1(p).nodeUnprepareResources(io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
                .addAllClaims(v1beta1(claims)).build());
        NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
        answer.getClaimsMap().forEach((uid, c) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(c.getError()).build()));
        return out.build();
    }

    // The kubelet's deadline for NodePrepareResources and NodeUnprepareResources.
    private static DRAPluginGrpc.DRAPluginBlockingStub v1(Registered p) {
        return DRAPluginGrpc.newBlockingStub(p.channel()).withDeadlineAfter(45, TimeUnit.SECONDS);
    }

    private static io.vfiodp.proto.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub v1beta1(Registered p) {
        return io.vfiodp.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(p.channel()).withDeadlineAfter(45, TimeUnit.SECONDS);
    }

    private static List<io.vfiodp.proto.dra.v1beta1.Claim> v1beta1(Claim... claims) {
        return java.util.Arrays.stream(claims).map(c -> io.vfiodp.proto.dra.v1beta1.Claim.newBuilder().setNamespace(c.getNamespace())
                .setUid(c.getUid()).setName(c.getName()).build()).toList();
    }

    /** Drops every connection, as a stopping kubelet does; {@link #register} then is the restarted kubelet's walk of the directory. */
    public synchronized void restart() {
        for (ManagedChannel c : channels) c.shutdownNow();
        channels.clear();
        plugin = null;
        healthUpdates.clear();
    }

    /**
     * Prepares a pod's special claim, as the kubelet does before it starts the pod, and gives each
     * container the CDI devices {@link #cdiDevices} says it gets.
     *
     * @param uid the claim's UID, as the API server gave it
     * @throws IllegalStateException with the driver's error when it refuses the claim: the kubelet does not start the pod
     */
    public Map<String, List<String>> prepareExtendedResources(ExtendedResourcePod pod, ExtendedResourceClaim claim, String uid) {
        NodePrepareResourceResponse prepared = prepare(claim(claim.namespace(), claim.name(), uid)).getClaimsOrThrow(uid);
        if (!prepared.getError().isEmpty()) throw new IllegalStateException("NodePrepareResources failed for ResourceClaim " + claim.name() + ": "
                + prepared.getError());
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ExtendedResourcePod.Container c : pod.containers()) out.put(c.name(), cdiDevices(prepared, claim, c));
        return out;
    }

    /**
     * The CDI devices the kubelet's DRA manager hands {@code container} from the special claim
     * ({@code Manager.GetResources} and {@code ClaimInfo.cdiDevicesAsList}): for each of the pod's
     * request mappings naming the container and a resource it asks for, the CDI IDs of every device
     * prepared for that request (its request names include it, or it lists none), in the driver's
     * order. Nothing is deduplicated: a driver that puts one CDI ID on each device of a request
     * hands the container that ID once per device.
     */
    public static List<String> cdiDevices(NodePrepareResourceResponse prepared, ExtendedResourceClaim claim, ExtendedResourcePod.Container container) {
        List<String> out = new ArrayList<>();
        for (ExtendedResourceClaim.Mapping m : claim.mappings()) {
            Long asked = container.requests().get(m.resourceName());
            if (!m.containerName().equals(container.name()) || asked == null || asked == 0) continue;
            for (Device d : prepared.getDevicesList()) {
                if (d.getRequestNamesCount() == 0 || d.getRequestNamesList().contains(m.requestName())) out.addAll(d.getCdiDeviceIdsList());
            }
        }
        return out;
    }

    public static Claim claim(String namespace, String name, String uid) {
        return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
    }

    private synchronized ManagedChannel channel(Path socket) {
        ManagedChannel c = UnixSockets.dial(socket, group, callbacks);
        channels.add(c);
        return c;
    }

    /** Whether {@code p} is a unix socket, as the plugin watcher asks. */
    public static boolean isSocket(Path p) {
        return UnixSockets.isSocket(p);
    }

    @Override
    public void close() {
        restart();
        callbacks.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
