package io.vfiodp.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Reads a ResourceClaim from the API, as Kubernetes' kubeletplugin helper does before preparing:
 * the kubelet names the claim, the API says what was allocated. Only {@code get} on
 * resourceclaims is needed.
 */
public final class ClaimSource {

    private final KubernetesClient client;

    public ClaimSource(KubernetesClient client) {
        this.client = client;
    }

    public sealed interface Fetched {}

    public record Found(ResourceClaim claim) implements Fetched {}

    public record Failed(String reason) implements Fetched {}

    public Fetched fetch(String namespace, String name) {
        String what = "ResourceClaim " + namespace + "/" + name;
        try {
            ResourceClaim claim = client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(namespace).withName(name).get();
            return claim == null ? new Failed(what + " does not exist") : new Found(claim);
        } catch (KubernetesClientException e) {
            String status = e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "";
            return new Failed("cannot read " + what + status + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return new Failed("cannot read " + what + ": " + e);
        }
    }
}
