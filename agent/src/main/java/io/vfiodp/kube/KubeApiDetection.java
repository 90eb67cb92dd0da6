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

    /** Where the kubelet mounts a pod's service account: its token is there in every pod that has one. */
    public static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

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

    /**
     * What was found where {@link #source} found no API, for the log line that says so: whether
     * this runs in a pod (a service-account token under {@code serviceAccount}) and, if so, that its
     * environment lacks the API server's address; what {@code KUBECONFIG} holds; the default
     * kubeconfig missing.
     */
    public static String absence(Map<String, String> env, Path home, Path serviceAccount) {
        Path token = serviceAccount.resolve("token");
        String host = env.get("KUBERNETES_SERVICE_HOST") == null ? "not set" : "empty";
        String where = Files.isRegularFile(token)
                ? "KUBERNETES_SERVICE_HOST is " + host + " although a service-account token is mounted (" + token
                        + "): a pod whose environment lacks the API server's address"
                : "not in a pod (KUBERNETES_SERVICE_HOST " + host + ", no service-account token at " + token + ")";
        String master = env.containsKey("KUBERNETES_MASTER") ? ", KUBERNETES_MASTER empty" : "";
        String kubeconfig = env.get("KUBECONFIG");
        String named = kubeconfig == null ? "KUBECONFIG not set"
                : kubeconfig.isBlank() ? "KUBECONFIG empty" : "no file KUBECONFIG names exists (" + kubeconfig + ")";
        return where + master + ", " + named + ", no " + home.resolve(".kube").resolve("config");
    }
}
