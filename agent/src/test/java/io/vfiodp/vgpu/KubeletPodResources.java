package io.vfiodp.vgpu;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.podresources.v1.ListPodResourcesRequest;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResourcesListerGrpc;

/** The kubelet's PodResources service, answering every List with one fixed response. */
public final class KubeletPodResources {

    private KubeletPodResources() {}

    public static PodResourcesListerGrpc.PodResourcesListerImplBase listing(ListPodResourcesResponse response) {
        return new PodResourcesListerGrpc.PodResourcesListerImplBase() {
            @Override
            public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> observer) {
                observer.onNext(response);
                observer.onCompleted();
            }
        };
    }
}
