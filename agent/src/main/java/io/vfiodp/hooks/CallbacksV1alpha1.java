package io.vfiodp.hooks;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.hooks.v1alpha1.CallbacksGrpc;
import io.vfiodp.proto.hooks.v1alpha1.OnDefineDomainParams;
import io.vfiodp.proto.hooks.v1alpha1.OnDefineDomainResult;

/** Callbacks v1alpha1: OnDefineDomain only. */
final class CallbacksV1alpha1 extends CallbacksGrpc.CallbacksImplBase {

    private final DomainDefinitionHook hook;

    CallbacksV1alpha1(DomainDefinitionHook hook) {
        this.hook = hook;
    }

    @Override
    public void onDefineDomain(OnDefineDomainParams request, StreamObserver<OnDefineDomainResult> response) {
        DefineCall.respond(response, () -> OnDefineDomainResult.newBuilder()
                .setDomainXML(DefineCall.answer(hook, request.getDomainXML(), request.getVmi()))
                .build());
    }
}
