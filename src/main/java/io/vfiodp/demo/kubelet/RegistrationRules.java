package io.vfiodp.demo.kubelet;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/** What the kubelet checks in a Register request before it dials the plugin back. */
final class RegistrationRules {

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private RegistrationRules() {}

    /** The plugin's socket, when {@code request} passes the kubelet's checks; else the kubelet's refusal. */
    static Path endpoint(RegisterRequest request, Path dir) {
        if (!KubeletSimulator.VERSION.equals(request.getVersion())) {
            throw refuse("Unsupported device plugin API version '" + request.getVersion() + "' from " + request.getResourceName()
                    + ", expected " + KubeletSimulator.VERSION);
        }
        Optional<String> bad = ResourceName.problem(request.getResourceName());
        if (bad.isPresent()) throw refuse("invalid resource name: " + bad.get());
        String endpoint = request.getEndpoint();
        if (endpoint.isEmpty() || endpoint.contains("/")) {
            throw refuse("endpoint '" + endpoint + "' of " + request.getResourceName() + " must be a socket file name in " + dir);
        }
        Path socket = dir.resolve(endpoint);
        if (!isSocket(socket)) throw refuse("endpoint " + socket + " of " + request.getResourceName() + " is not a unix socket");
        return socket;
    }

    private static StatusRuntimeException refuse(String message) {
        return new StatusRuntimeException(Status.INVALID_ARGUMENT.withDescription(message));
    }

    static boolean isSocket(Path p) {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & S_IFMT) == S_IFSOCK;
        } catch (IOException e) {
            return false;
        }
    }
}
