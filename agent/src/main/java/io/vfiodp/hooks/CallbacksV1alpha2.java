package io.vfiodp.hooks;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.hooks.v1alpha2.CallbacksGrpc;
import io.vfiodp.proto.hooks.v1alpha2.OnDefineDomainParams;
import io.vfiodp.proto.hooks.v1alpha2.OnDefineDomainResult;
import io.vfiodp.proto.hooks.v1alpha2.PreCloudInitIsoParams;
import io.vfiodp.proto.hooks.v1alpha2.PreCloudInitIsoResult;

/** Callbacks v1alpha2: OnDefineDomain, and PreCloudInitIso answered with its own input. */
final class CallbacksV1alpha2 extends CallbacksGrpc.CallbacksImplBase {

    private final DomainDefinitionHook hook;

    CallbacksV1alpha2(DomainDefinitionHook hook) {
        this.hook = hook;
    }

    @Override
    public void onDefineDomain(OnDefineDomainParams request, StreamObserver<OnDefineDomainResult> response) {
        DefineCall.respond(response, () -> OnDefineDomainResult.newBuilder()
                .setDomainXML(DefineCall.answer(hook, request.getDomainXML(), request.getVmi()))
                .build());
    }

    @Override
    public void preCloudInitIso(PreCloudInitIsoParams request, StreamObserver<PreCloudInitIsoResult> response) {
        response.onNext(PreCloudInitIsoResult.newBuilder()
                .setCloudInitNoCloudSource(request.getCloudInitNoCloudSource())
                .setCloudInitData(request.getCloudInitData())
                .build());
        response.onCompleted();
    }
}
