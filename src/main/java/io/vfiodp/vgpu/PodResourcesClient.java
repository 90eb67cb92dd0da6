package io.vfiodp.vgpu;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.vfiodp.kubelet.KubeletDialler;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;
import io.vfiodp.triggers.ProblemLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the kubelet's PodResources API ({@code List}, v1) which device ids are allocated to
 * containers. When it cannot answer, the result is {@link Allocated.Unknown}: nothing can be
 * proven free. The first failure is logged, then nothing until it answers again.
 */
public final class PodResourcesClient implements AutoCloseable {

    public static final Path DEFAULT_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.vgpu");

    private final Path socket;
    private final Duration timeout;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1, new DefaultThreadFactory("vfio-dp-podresources", true));
    // Only the layout thread calls allocated().
    private final ProblemLog unavailable = new ProblemLog(log);

    public PodResourcesClient(Path socket, Duration timeout) {
        this.socket = socket;
        this.timeout = timeout;
    }

    public Allocated allocated() {
        if (!Files.exists(socket)) return unknown(socket + " does not exist (mount the kubelet's /var/lib/kubelet/pod-resources)");
        ManagedChannel channel = KubeletDialler.dial(socket, group);
        try {
            ListPodResourcesResponse response = PodResourcesListerGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
            Set<String> ids = new HashSet<>();
            for (PodResources pod : response.getPodResourcesList()) {
                for (ContainerResources c : pod.getContainersList()) {
                    for (ContainerDevices d : c.getDevicesList()) ids.addAll(d.getDeviceIdsList());
                }
            }
            unavailable.resolved("PodResources API at " + socket + " answers again");
            return new Allocated.Known(ids);
        } catch (StatusRuntimeException e) {
            return unknown("PodResources List on " + socket + " failed: " + e.getStatus().getCode() + " "
                    + (e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription()));
        } finally {
            channel.shutdownNow();
            try {
                channel.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Allocated unknown(String reason) {
        // the first failure says what to do; the next ones, whatever their reason, add nothing until it answers again
        unavailable.problem("unavailable", reason.strip() + "; vGPUs are not removed or cleared until it answers (cannot prove them free)");
        return new Allocated.Unknown(reason.strip());
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
