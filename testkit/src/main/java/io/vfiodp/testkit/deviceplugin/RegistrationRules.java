package io.vfiodp.testkit.deviceplugin;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.testkit.UnixSockets;
import java.nio.file.Path;
import java.util.Optional;

/** What the kubelet checks in a Register request before it dials the plugin back. */
final class RegistrationRules {

    private RegistrationRules() {}

    /** The plugin's socket, when {@code request} passes the kubelet's checks; else the kubelet's refusal. */
    static Path endpoint(RegisterRequest request, Path dir) {
        if (!KubeletSimulator.VERSION.equals(request.getVersion())) {
            throw refuse("Unsupported device plugin API version '" + request.getVersion() + "' from " + request.getResourceName()
                    + ", expected " + KubeletSimulator.VERSION);
        }
        Optional<String> bad = ExtendedResourceName.problem(request.getResourceName());
        if (bad.isPresent()) throw refuse("invalid resource name: " + bad.get());
        String endpoint = request.getEndpoint();
        if (endpoint.isEmpty() || endpoint.contains("/")) {
            throw refuse("endpoint '" + endpoint + "' of " + request.getResourceName() + " must be a socket file name in " + dir);
        }
        Path socket = dir.resolve(endpoint);
        if (!UnixSockets.isSocket(socket)) throw refuse("endpoint " + socket + " of " + request.getResourceName() + " is not a unix socket");
        return socket;
    }

    private static StatusRuntimeException refuse(String message) {
        return new StatusRuntimeException(Status.INVALID_ARGUMENT.withDescription(message));
    }
}
