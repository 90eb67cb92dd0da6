package io.vfiodp.hooks;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.hooks.v1alpha3.CallbacksGrpc;
import io.vfiodp.proto.hooks.v1alpha3.OnDefineDomainParams;
import io.vfiodp.proto.hooks.v1alpha3.OnDefineDomainResult;
import io.vfiodp.proto.hooks.v1alpha3.PreCloudInitIsoParams;
import io.vfiodp.proto.hooks.v1alpha3.PreCloudInitIsoResult;
import io.vfiodp.proto.hooks.v1alpha3.ShutdownParams;
import io.vfiodp.proto.hooks.v1alpha3.ShutdownResult;

/** Callbacks v1alpha3: v1alpha2 plus Shutdown, after which the sidecar stops serving. */
final class CallbacksV1alpha3 extends CallbacksGrpc.CallbacksImplBase {

    private final DomainDefinitionHook hook;
    private final Runnable onShutdown;

    CallbacksV1alpha3(DomainDefinitionHook hook, Runnable onShutdown) {
        this.hook = hook;
        this.onShutdown = onShutdown;
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

    @Override
    public void shutdown(ShutdownParams request, StreamObserver<ShutdownResult> response) {
        response.onNext(ShutdownResult.getDefaultInstance());
        response.onCompleted();
        onShutdown.run();
    }
}
