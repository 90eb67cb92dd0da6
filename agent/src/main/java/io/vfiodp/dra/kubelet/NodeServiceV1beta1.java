package io.vfiodp.dra.kubelet;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.dra.v1beta1.Claim;
import io.vfiodp.proto.dra.v1beta1.DRAPluginGrpc;
import io.vfiodp.proto.dra.v1beta1.Device;
import io.vfiodp.proto.dra.v1beta1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesRequest;
import io.vfiodp.proto.dra.v1beta1.NodePrepareResourcesResponse;
import io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourceResponse;
import io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesRequest;
import io.vfiodp.proto.dra.v1beta1.NodeUnprepareResourcesResponse;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}, for kubelets older than the v1 node API
 * (before 1.34): the same messages without {@code share_id}, converted to and from v1.
 */
public final class NodeServiceV1beta1 extends DRAPluginGrpc.DRAPluginImplBase {

    private final NodeServiceV1 v1;

    public NodeServiceV1beta1(NodeServiceV1 v1) {
        this.v1 = v1;
    }

    @Override
    public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
        io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest.Builder b = io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest.newBuilder();
        for (Claim c : request.getClaimsList()) b.addClaims(claim(c));
        v1.nodePrepareResources(b.build(), new Converting<>(response, r -> {
            NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
            r.getClaimsMap().forEach((uid, claim) -> {
                NodePrepareResourceResponse.Builder c = NodePrepareResourceResponse.newBuilder().setError(claim.getError());
                for (io.vfiodp.proto.dra.v1.Device d : claim.getDevicesList()) {
                    c.addDevices(Device.newBuilder().addAllRequestNames(d.getRequestNamesList()).setPoolName(d.getPoolName())
                            .setDeviceName(d.getDeviceName()).addAllCdiDeviceIds(d.getCdiDeviceIdsList()));
                }
                out.putClaims(uid, c.build());
            });
            return out.build();
        }));
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> response) {
        io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest.Builder b = io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest.newBuilder();
        for (Claim c : request.getClaimsList()) b.addClaims(claim(c));
        v1.nodeUnprepareResources(b.build(), new Converting<>(response, r -> {
            NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
            r.getClaimsMap().forEach((uid, claim) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(claim.getError()).build()));
            return out.build();
        }));
    }

    private static io.vfiodp.proto.dra.v1.Claim claim(Claim c) {
        return io.vfiodp.proto.dra.v1.Claim.newBuilder().setNamespace(c.getNamespace()).setUid(c.getUid()).setName(c.getName()).build();
    }

    /** Passes a v1 answer on in v1beta1 form. */
    private record Converting<A, B>(StreamObserver<B> target, java.util.function.Function<A, B> convert) implements StreamObserver<A> {
        @Override public void onNext(A value) { target.onNext(convert.apply(value)); }
        @Override public void onError(Throwable t) { target.onError(t); }
        @Override public void onCompleted() { target.onCompleted(); }
    }
}
