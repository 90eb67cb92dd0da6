package io.vfiodp.dra.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.dra.v1.DRAPluginGrpc;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}. Per-claim failures travel in the response;
 * only a failure of the call as a whole (which makes the kubelet ignore the response) is a gRPC error.
 */
public final class NodeServiceV1 extends DRAPluginGrpc.DRAPluginImplBase {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final ClaimHandler handler;

    public NodeServiceV1(ClaimHandler handler) {
        this.handler = handler;
    }

    @Override
    public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
        try {
            response.onNext(handler.prepare(request));
            response.onCompleted();
        } catch (RuntimeException e) {
            log.error("DRA: NodePrepareResources failed as a whole", e);
            response.onError(Status.INTERNAL.withDescription("NodePrepareResources: " + e.getMessage()).asRuntimeException());
        }
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> response) {
        try {
            response.onNext(handler.unprepare(request));
            response.onCompleted();
        } catch (RuntimeException e) {
            log.error("DRA: NodeUnprepareResources failed as a whole", e);
            response.onError(Status.INTERNAL.withDescription("NodeUnprepareResources: " + e.getMessage()).asRuntimeException());
        }
    }
}
