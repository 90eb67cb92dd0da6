package io.vfiodp.plugin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet-facing handlers of one resource. Unary calls read the current view through one
 * volatile field and answer on the transport thread. ListAndWatch streams are owned by the
 * reconcile thread: opening and cancelling a stream only hands it over, so every message on a
 * stream is sent by that one thread.
 */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    static final DevicePluginOptions OPTIONS = DevicePluginOptions.newBuilder()
            .setGetPreferredAllocationAvailable(true)
            .setPreStartRequired(false)
            .build();

    private final Executor reconcileThread;
    private final PluginListener listener;
    private volatile ResourceView view;
    // Confined to the reconcile thread.
    private final Set<ServerCallStreamObserver<ListAndWatchResponse>> streams = new LinkedHashSet<>();
    private boolean closed;

    DevicePluginService(ResourceView initial, Executor reconcileThread, PluginListener listener) {
        this.view = initial;
        this.reconcileThread = reconcileThread;
        this.listener = listener;
    }

    ResourceView view() {
        return view;
    }

    /** Reconcile thread only. Sends the new list to every stream when what the kubelet sees changed. */
    boolean publish(ResourceView next) {
        ResourceView previous = view;
        view = next;
        boolean changed = !previous.listAndWatchResponse().equals(next.listAndWatchResponse());
        if (changed) {
            for (var s : streams) send(s, next.listAndWatchResponse());
        }
        return changed;
    }

    /** Reconcile thread only. */
    int openStreams() {
        return streams.size();
    }

    /** Reconcile thread only: ends every stream, after a last empty list when {@code finalEmpty}. */
    void closeStreams(boolean finalEmpty) {
        closed = true;
        for (var s : streams) {
            try {
                if (finalEmpty) s.onNext(ListAndWatchResponse.getDefaultInstance());
                s.onCompleted();
            } catch (RuntimeException e) {
                log.debug("{}: stream already gone while closing: {}", view.name(), e.toString());
            }
        }
        streams.clear();
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
        response.onNext(OPTIONS);
        response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
        var stream = (ServerCallStreamObserver<ListAndWatchResponse>) response;
        stream.setOnCancelHandler(() -> handOver(() -> {
            if (streams.remove(stream)) log.info("{}: kubelet closed a ListAndWatch stream ({} open)", view.name(), streams.size());
        }));
        boolean accepted = handOver(() -> {
            if (closed || stream.isCancelled()) {
                stream.onCompleted();
                return;
            }
            streams.add(stream);
            send(stream, view.listAndWatchResponse());
            log.info("{}: ListAndWatch stream opened ({} open), sent {} devices", view.name(), streams.size(),
                    view.listAndWatchResponse().getDevicesCount());
        });
        if (!accepted) stream.onError(Status.UNAVAILABLE.withDescription("device plugin is shutting down").asRuntimeException());
    }

    @Override
    public void getPreferredAllocation(PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
        ResourceView v = view;
        switch (PreferredAllocation.prefer(v, request)) {
            case RpcOutcome.Granted<PreferredAllocationResponse> g -> {
                log.info("{}: preferred allocation {}", v.name(), g.response().getContainerResponsesList().stream()
                        .map(c -> c.getDeviceIDsList().toString()).toList());
                response.onNext(g.response());
                response.onCompleted();
            }
            case RpcOutcome.Refused<PreferredAllocationResponse> r -> {
                log.warn("{}", r.message());
                response.onError(r.asException());
            }
        }
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
        answerAllocate(view, request, response, listener, true);
    }

    /**
     * One Allocate of the view's first healthy device through the same code as the kubelet's,
     * answered to no one: the first real call then finds its classes initialised and its
     * constant pools resolved instead of waiting for that (docs/benchmarks.md, "Choices in the code"). Neither the listener
     * (metrics, events) nor the log sees it. The request and the answer go through their wire
     * form, as on a socket. Called on the reconcile thread after a server has started.
     *
     * @return whether there was a healthy device to allocate
     */
    boolean warmUpAllocate() {
        ResourceView v = view;
        Optional<String> id = Optional.empty();
        for (ExposedDevice d : v.devices().values()) {
            if (d.health() instanceof Health.Healthy) {
                id = Optional.of(d.id());
                break;
            }
        }
        if (id.isEmpty()) return false;
        byte[] wire = AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(id.get()))
                .build().toByteArray();
        try {
            answerAllocate(v, AllocateRequest.parseFrom(wire), new Discarding<>(), PluginListener.NONE, false);
            return true;
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a request this class just wrote does not parse", e);
        }
    }

    private static void answerAllocate(ResourceView v, AllocateRequest request, StreamObserver<AllocateResponse> response,
                                       PluginListener listener, boolean logged) {
        switch (Allocation.allocate(v, request)) {
            case RpcOutcome.Granted<AllocateResponse> g -> {
                int count = 0;
                for (ContainerAllocateRequest c : request.getContainerRequestsList()) count += c.getDevicesIdsCount();
                listener.allocated(v.name(), count);
                if (logged && log.isInfoEnabled()) {
                    Runnable lines = () -> {
                        for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
                            log.info("{}: allocated {}", v.name(), String.join(",", c.getDevicesIdsList()));
                        }
                    };
                    if (response instanceof ServerCallStreamObserver<AllocateResponse> call) {
                        // Written once the answer is on the socket (close) or the call is gone (cancel), still on
                        // the transport thread and in order: the kubelet no longer waits for the line (the date's
                        // SimpleDateFormat, System.err), a share of every Allocate it would otherwise pay for
                        // (docs/benchmarks.md, "Choices in the code"). The count above stays before the answer, so that a scrape after the
                        // call sees it.
                        call.setOnCloseHandler(lines);
                        call.setOnCancelHandler(lines);
                    } else {
                        lines.run();
                    }
                }
                response.onNext(g.response());
                response.onCompleted();
            }
            case RpcOutcome.Refused<AllocateResponse> r -> {
                if (logged) log.warn("{}", r.message());
                listener.allocationRefused(v.name());
                response.onError(r.asException());
            }
        }
    }

    /** Takes an answer as the transport would (its wire form) and drops it. */
    private static final class Discarding<T extends MessageLite> implements StreamObserver<T> {
        @Override
        public void onNext(T value) {
            value.toByteArray();
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
    }

    private boolean handOver(Runnable task) {
        try {
            reconcileThread.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void send(ServerCallStreamObserver<ListAndWatchResponse> stream, ListAndWatchResponse message) {
        try {
            stream.onNext(message);
        } catch (RuntimeException e) {
            // A stream the kubelet just dropped; its cancel handler removes it.
            log.debug("{}: ListAndWatch send failed: {}", view.name(), e.toString());
        }
    }
}
