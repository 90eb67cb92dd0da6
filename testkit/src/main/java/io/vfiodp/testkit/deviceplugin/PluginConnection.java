package io.vfiodp.testkit.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The kubelet's side of the connection to a registering plugin: dialled back on its endpoint, asked its options first. */
final class PluginConnection {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private PluginConnection() {}

    /** A blocking stub with the kubelet's call deadline. */
    static DevicePluginGrpc.DevicePluginBlockingStub stub(ManagedChannel channel) {
        return DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** GetPreferredAllocation for one container. */
    static PreferredAllocationRequest preferredRequest(List<String> available, List<String> mustInclude, int size) {
        return PreferredAllocationRequest.newBuilder()
                .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(available)
                        .addAllMustIncludeDeviceIDs(mustInclude)
                        .setAllocationSize(size))
                .build();
    }

    /** Allocate: one list of device IDs per container. */
    static AllocateRequest allocateRequest(List<List<String>> containers) {
        AllocateRequest.Builder b = AllocateRequest.newBuilder();
        for (List<String> ids : containers) b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
        return b.build();
    }

    /** GetDevicePluginOptions, as the kubelet calls it before it answers Register; shuts the channel down when it fails. */
    static DevicePluginOptions options(ManagedChannel channel, String resource, Path socket) {
        try {
            return stub(channel).getDevicePluginOptions(Empty.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            channel.shutdownNow();
            throw new StatusRuntimeException(Status.UNAVAILABLE.withDescription("cannot reach plugin " + resource + " at " + socket + ": "
                    + e.getStatus()));
        }
    }
}
