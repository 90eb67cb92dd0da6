package io.vfiodp.hooks;

import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.hooks.info.HookPoint;
import io.vfiodp.proto.hooks.info.InfoGrpc;
import io.vfiodp.proto.hooks.info.InfoParams;
import io.vfiodp.proto.hooks.info.InfoResult;

/**
 * What virt-launcher asks first. It picks the newest Callbacks version both sides know
 * (v1alpha3 on KubeVirt 1.x, v1alpha1 on very old releases) and calls us at the hook points
 * listed: OnDefineDomain, and Shutdown so that our container exits with the VM.
 * PreCloudInitIso is served but not subscribed to: there is nothing to change in cloud-init.
 */
final class InfoService extends InfoGrpc.InfoImplBase {

    static final String NAME = "vfio-device-plugin";
    static final String ON_DEFINE_DOMAIN = "OnDefineDomain";
    static final String SHUTDOWN = "Shutdown";

    @Override
    public void info(InfoParams request, StreamObserver<InfoResult> response) {
        response.onNext(InfoResult.newBuilder()
                .setName(NAME)
                .addVersions("v1alpha1")
                .addVersions("v1alpha2")
                .addVersions("v1alpha3")
                .addHookPoints(HookPoint.newBuilder().setName(ON_DEFINE_DOMAIN).setPriority(0))
                .addHookPoints(HookPoint.newBuilder().setName(SHUTDOWN).setPriority(0))
                .build());
        response.onCompleted();
    }
}
