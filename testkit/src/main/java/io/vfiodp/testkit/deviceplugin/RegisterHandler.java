package io.vfiodp.testkit.deviceplugin;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.testkit.UnixSockets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Executor;

/**
 * The kubelet's answer to a Register call: the request's checks ({@link RegistrationRules}), the
 * plugin dialled back on its endpoint and asked its options, its ListAndWatch stream opened and fed
 * to the {@link DeviceManager}, the registration recorded; or the refusal, recorded as well.
 */
final class RegisterHandler {

    private final Path dir;
    private final EventLoopGroup group;
    private final Executor streams;
    private final PluginConnections connections;
    private final DeviceManager deviceManager;
    private final Registrations registrations;

    /** @param streams runs the callbacks of the connections to the plugins */
    RegisterHandler(Path dir, EventLoopGroup group, Executor streams, PluginConnections connections, DeviceManager deviceManager,
                    Registrations registrations) {
        this.dir = dir;
        this.group = group;
        this.streams = streams;
        this.connections = connections;
        this.deviceManager = deviceManager;
        this.registrations = registrations;
    }

    void register(RegisterRequest request, StreamObserver<Empty> response) {
        long run = registrations.run();
        try {
            accept(request, run);
            response.onNext(Empty.getDefaultInstance());
            response.onCompleted();
        } catch (StatusRuntimeException e) {
            registrations.refuse(run, e.getStatus().getDescription());
            response.onError(e);
        }
    }

    private void accept(RegisterRequest request, long run) {
        Path socket = RegistrationRules.endpoint(request, dir);
        String resource = request.getResourceName();
        ManagedChannel channel = UnixSockets.dial(socket, group, streams);
        DevicePluginOptions options = PluginConnection.options(channel, resource, socket);
        Watch watch = new Watch(resource, new Watch.Listener() {
            @Override public void listed(Watch w, ListAndWatchResponse list) {
                deviceManager.listed(resource, w, list);
            }

            @Override public void ended(Watch w) {
                deviceManager.ended(resource, w);
            }
        });
        KubeletSimulator.Registration registration = new KubeletSimulator.Registration(resource, request.getEndpoint(), options, Instant.now());
        boolean current = registrations.accept(run, registration, () -> {
            connections.put(resource, channel, watch);
            deviceManager.connected(resource, watch);
        });
        if (!current) {
            // A restarted kubelet is a new process: what its predecessor was answering never reaches it.
            channel.shutdownNow();
            throw new StatusRuntimeException(Status.UNAVAILABLE.withDescription("kubelet restarted while registering " + resource));
        }
        // Outlives this Register call: detach it from the call's context, which ends when we answer.
        Context.ROOT.run(() -> DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), watch.observer()));
    }
}
