package io.vfiodp.dra.claims;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Reads a ResourceClaim from the API, as Kubernetes' kubeletplugin helper does before preparing:
 * the kubelet names the claim, the API says what was allocated. Only {@code get} on
 * resourceclaims is needed.
 *
 * <p>The claim is read as a generic resource, a JSON tree {@link ClaimAllocations} reads: fabric8's
 * typed reading would have Jackson introspect the claim's whole model, its builders and
 * serializers, which serve would keep for nothing (docs/benchmarks.md).
 */
public final class ClaimSource {

    /** Named outright: the client then asks no discovery for the plural. */
    public static final ResourceDefinitionContext CLAIMS = new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io")
            .withVersion("v1").withKind("ResourceClaim").withPlural("resourceclaims").withNamespaced(true).build();

    private final KubernetesClient client;

    public ClaimSource(KubernetesClient client) {
        this.client = client;
    }

    public sealed interface Fetched {}

    public record Found(GenericKubernetesResource claim) implements Fetched {}

    public record Failed(String reason) implements Fetched {}

    public Fetched fetch(String namespace, String name) {
        String what = "ResourceClaim " + namespace + "/" + name;
        try {
            GenericKubernetesResource claim = client.genericKubernetesResources(CLAIMS).inNamespace(namespace).withName(name).get();
            return claim == null ? new Failed(what + " does not exist") : new Found(claim);
        } catch (KubernetesClientException e) {
            String status = e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "";
            return new Failed("cannot read " + what + status + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return new Failed("cannot read " + what + ": " + e);
        }
    }
}
