package io.vfiodp.kube;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a Kubernetes API can be configured at all: inside a pod (the kubelet's service env
 * vars) or through a kubeconfig. Without either, {@code --kubevirt auto} would wait for a
 * KubeVirt CR reading that cannot come, and the client would retry a made-up in-cluster address.
 */
public final class KubeApiDetection {

    private KubeApiDetection() {}

    /** Where the API configuration comes from, or empty when there is none. */
    public static Optional<String> source(Map<String, String> env, Path home) {
        String serviceHost = env.get("KUBERNETES_SERVICE_HOST");
        if (serviceHost != null && !serviceHost.isBlank()) return Optional.of("in-cluster service " + serviceHost);
        String master = env.get("KUBERNETES_MASTER");
        if (master != null && !master.isBlank()) return Optional.of("KUBERNETES_MASTER " + master);
        String kubeconfig = env.get("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            for (String file : kubeconfig.split(java.io.File.pathSeparator)) {
                if (!file.isBlank() && Files.isRegularFile(Path.of(file))) return Optional.of("kubeconfig " + file);
            }
        }
        Path defaultConfig = home.resolve(".kube").resolve("config");
        if (Files.isRegularFile(defaultConfig)) return Optional.of("kubeconfig " + defaultConfig);
        return Optional.empty();
    }
}
