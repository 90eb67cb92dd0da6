package io.vfiodp.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vfiodp.proto.pluginregistration.v1.InfoRequest;
import io.vfiodp.proto.pluginregistration.v1.PluginInfo;
import io.vfiodp.proto.pluginregistration.v1.RegistrationGrpc;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatusResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The registration service the kubelet's plugin watcher calls on a socket it finds in
 * {@code plugins_registry} ({@code pluginregistration.v1}): {@code GetInfo} says which kind of
 * plugin this is, its name, where its own service listens and which versions of it it serves;
 * {@code NotifyRegistrationStatus} brings the kubelet's verdict, which goes to {@code onStatus} and
 * is acknowledged as Kubernetes' plugin helpers do (a refusal is answered with an error).
 */
public final class PluginWatcherRegistration extends RegistrationGrpc.RegistrationImplBase {

    private final PluginInfo info;
    private final Consumer<RegistrationStatus> onStatus;

    /**
     * @param type     the plugin kind as the kubelet names it ({@code DRAPlugin}, {@code CSIPlugin})
     * @param endpoint the socket of the plugin's own service, made absolute
     * @param versions the services or versions on {@code endpoint}, in the order the kubelet should prefer them
     */
    public PluginWatcherRegistration(String type, String name, Path endpoint, List<String> versions, Consumer<RegistrationStatus> onStatus) {
        this.info = PluginInfo.newBuilder().setType(Objects.requireNonNull(type, "type")).setName(Objects.requireNonNull(name, "name"))
                .setEndpoint(endpoint.toAbsolutePath().toString()).addAllSupportedVersions(versions).build();
        this.onStatus = Objects.requireNonNull(onStatus, "onStatus");
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        response.onNext(info);
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
