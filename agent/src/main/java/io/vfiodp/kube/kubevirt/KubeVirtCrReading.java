package io.vfiodp.kube.kubevirt;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vfiodp.kube.KubeApiDetection;
import io.vfiodp.kube.KubeClients;
import io.vfiodp.kube.SupervisedInformer;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The KubeVirt CR read once, for a check rather than to follow it: what {@code doctor} reports.
 * The CR in force is picked as the watcher picks it (the first created).
 */
public sealed interface KubeVirtCrReading {

    /** No Kubernetes API is configured here (no in-cluster service, no kubeconfig). */
    record NoApi() implements KubeVirtCrReading {}

    /** The API does not serve {@code kubevirts.kubevirt.io}. */
    record NotInstalled() implements KubeVirtCrReading {}

    /** KubeVirt's API is served, but no CR exists. */
    record NoCr() implements KubeVirtCrReading {}

    /**
     * @param phase                {@code status.phase} ({@code Deployed}), when set
     * @param permittedHostDevices the CR's {@code permittedHostDevices}, when it has one
     * @param ignored              other CRs, which KubeVirt ignores
     */
    record Found(CrRef source, Optional<String> phase, Optional<PermittedHostDevices> permittedHostDevices, List<CrRef> ignored)
            implements KubeVirtCrReading {
        public Found {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(phase, "phase");
            Objects.requireNonNull(permittedHostDevices, "permittedHostDevices");
            ignored = List.copyOf(ignored);
        }
    }

    /** The API answered with an error or not at all. */
    record Unreadable(String reason) implements KubeVirtCrReading {
        public Unreadable {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** How long one attempt may take: doctor answers in seconds, also when the API server is gone. */
    int TIMEOUT_MILLIS = 5000;

    /**
     * The CR as the API configured in {@code env} (in-cluster service, {@code KUBECONFIG}) or
     * {@code home}'s {@code .kube/config} shows it, one attempt with {@link #TIMEOUT_MILLIS}; never throws.
     */
    static KubeVirtCrReading fromEnvironment(Map<String, String> env, Path home) {
        if (KubeApiDetection.source(env, home).isEmpty()) return new NoApi();
        Config config;
        try {
            config = new ConfigBuilder(Config.autoConfigure(null)).withConnectionTimeout(TIMEOUT_MILLIS).withRequestTimeout(TIMEOUT_MILLIS)
                    .withRequestRetryBackoffLimit(0).build();
        } catch (RuntimeException e) {
            return new Unreadable("the Kubernetes API configuration cannot be used: " + e.getMessage());
        }
        try (KubernetesClient client = KubeClients.of(config)) {
            return read(client);
        }
    }

    /** Lists the KubeVirt CRs of every namespace once through {@code client}; never throws. */
    static KubeVirtCrReading read(KubernetesClient client) {
        List<KubeVirt> all;
        try {
            all = client.resources(KubeVirt.class).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return new NotInstalled();
            return new Unreadable(SupervisedInformer.describe(e, "list on kubevirts.kubevirt.io", "KubeVirt is not installed"));
        } catch (RuntimeException e) {
            return new Unreadable(SupervisedInformer.describe(e, "list on kubevirts.kubevirt.io", "KubeVirt is not installed"));
        }
        ActiveKubeVirt.Selection selection = ActiveKubeVirt.select(all);
        if (selection.active().isEmpty()) return new NoCr();
        KubeVirt kv = selection.active().get();
        KubeVirtConfig.FromCr config = KubeVirtCrConverter.convert(kv, Map.of());
        return new Found(config.source(), Optional.ofNullable(kv.getStatus()).map(s -> s.getPhase()).filter(p -> !p.isBlank()),
                config.permittedHostDevices(), selection.ignored().stream().map(ActiveKubeVirt::ref).toList());
    }
}
