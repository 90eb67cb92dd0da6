package io.vfiodp.dra.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.pluginregistration.v1.InfoRequest;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import io.vfiodp.proto.pluginregistration.v1.RegistrationGrpc;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatusResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The registration service the kubelet's plugin watcher calls on our socket in
 * {@code plugins_registry}: {@code GetInfo} says we are the DRA plugin of our driver, where the
 * DRA service listens and which gRPC services it implements; {@code NotifyRegistrationStatus}
 * tells whether the kubelet took us.
 */
public final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

    /** {@code registerapi.DRAPlugin}. */
    public static final String TYPE = "DRAPlugin";
    /**
     * The services of the DRA socket, as the kubelet names them: it uses the first of the node
     * services it knows ({@code validateSupportedServices}), so v1 comes first, and it watches health
     * only when the health service is listed.
     */
    public static final List<String> SERVICES = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

    private final String driver;
    private final Path endpoint;
    private final Consumer<RegistrationStatus> onStatus;

    public RegistrationService(String driver, Path endpoint, Consumer<RegistrationStatus> onStatus) {
        this.driver = driver;
        this.endpoint = endpoint.toAbsolutePath();
        this.onStatus = onStatus;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        response.onNext(PluginInfo.newBuilder().setType(TYPE).setName(driver).setEndpoint(endpoint.toString())
                .addAllSupportedVersions(SERVICES).build());
        response.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
        onStatus.accept(status);
        if (status.getPluginRegistered()) {
            response.onNext(RegistrationStatusResponse.getDefaultInstance());
            response.onCompleted();
        } else {
            response.onError(Status.UNKNOWN.withDescription("failed registration process: " + status.getError()).asRuntimeException());
        }
    }
}
