package io.vfiodp.dra.kubelet;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code v1alpha1.DRAResourceHealth}: every open {@code NodeWatchResources} stream gets the
 * complete device list when it opens and again on every {@link #publish}: at each health change
 * and at each heartbeat, since the kubelet takes a device it has not heard of within its timeout
 * (30 s by default) as Unknown.
 */
public final class HealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {

    private final List<ServerCallStreamObserver<NodeWatchResourcesResponse>> streams = new ArrayList<>();
    private NodeWatchResourcesResponse current = NodeWatchResourcesResponse.getDefaultInstance();

    @Override
    public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
        ServerCallStreamObserver<NodeWatchResourcesResponse> stream = (ServerCallStreamObserver<NodeWatchResourcesResponse>) response;
        stream.setOnCancelHandler(() -> {
            synchronized (this) {
                streams.remove(stream);
            }
        });
        synchronized (this) {
            streams.add(stream);
            stream.onNext(current);
        }
    }

    /** Sends {@code list} on every stream and to streams opened later. */
    public synchronized void publish(NodeWatchResourcesResponse list) {
        current = list;
        for (ServerCallStreamObserver<NodeWatchResourcesResponse> s : List.copyOf(streams)) {
            if (s.isCancelled()) {
                streams.remove(s);
            } else {
                s.onNext(list);
            }
        }
    }

    public synchronized int openStreams() {
        return streams.size();
    }

    /** Ends every stream: the server is going away. */
    public synchronized void closeStreams() {
        for (ServerCallStreamObserver<NodeWatchResourcesResponse> s : streams) {
            if (!s.isCancelled()) s.onCompleted();
        }
        streams.clear();
    }
}
