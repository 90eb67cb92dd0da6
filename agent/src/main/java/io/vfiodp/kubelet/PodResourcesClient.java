package io.vfiodp.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.proto.podresources.v1.ClaimResource;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.DynamicResource;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Asks the kubelet's PodResources API ({@code List}, v1) what the containers of running pods hold:
 * device-plugin devices, and DRA devices where the kubelet lists them (1.34+). One client serves
 * every part that asks (the vGPU layout, the switch between device plugins and DRA), from the
 * pass's thread, the holders' thread; each says itself what it holds back while the API does not
 * answer. Each question has an event-loop thread of its own, ended with it: a netty event loop
 * left idle between questions wakes about once a second (seen here: 19 wake-ups in 20 s after
 * one question), and questions come a minute apart when nothing happens.
 */
public final class PodResourcesClient implements AutoCloseable {

    public static final Path DEFAULT_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    private final Path socket;
    private final Duration timeout;

    public PodResourcesClient(Path socket, Duration timeout) {
        this.socket = socket;
        this.timeout = timeout;
    }

    public Path socket() {
        return socket;
    }

    /** What the containers hold now, or why that cannot be told. */
    public PodResourcesReading read() {
        if (!Files.exists(socket)) {
            return new PodResourcesReading.Unreadable(socket + " does not exist (mount the kubelet's /var/lib/kubelet/pod-resources)");
        }
        EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory("vfio-dp-podresources", true));
        ManagedChannel channel = KubeletDialler.dial(socket, group);
        try {
            ListPodResourcesResponse response = PodResourcesListerGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
            return new PodResourcesReading.Listed(held(response));
        } catch (StatusRuntimeException e) {
            Optional<String> connect = KubeletDialler.connectFailure(socket, e);
            if (connect.isPresent()) return new PodResourcesReading.Unreadable("PodResources List failed: " + connect.get());
            String description = e.getStatus().getDescription();
            return new PodResourcesReading.Unreadable(("PodResources List on " + socket + " failed: " + e.getStatus().getCode() + " "
                    + (description == null ? "" : description)).strip());
        } finally {
            channel.shutdownNow();
            try {
                channel.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    static List<HeldDevice> held(ListPodResourcesResponse response) {
        List<HeldDevice> out = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            String podName = pod.getNamespace() + "/" + pod.getName();
            for (ContainerResources c : pod.getContainersList()) {
                for (ContainerDevices d : c.getDevicesList()) {
                    for (String id : d.getDeviceIdsList()) out.add(new HeldDevice.ByPlugin(podName, c.getName(), d.getResourceName(), id));
                }
                for (DynamicResource claim : c.getDynamicResourcesList()) {
                    String claimName = claim.getClaimNamespace() + "/" + claim.getClaimName();
                    for (ClaimResource r : claim.getClaimResourcesList()) {
                        out.add(new HeldDevice.ByClaim(podName, c.getName(), claimName, r.getDriverName(), r.getPoolName(), r.getDeviceName()));
                    }
                }
            }
        }
        return out;
    }

    /** Holds no thread between questions: nothing to end. */
    @Override
    public void close() {
    }
}
