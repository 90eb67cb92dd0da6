package io.vfiodp.dra.claims;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vfiodp.dra.model.JsonTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a ResourceClaim from the API, as Kubernetes' kubeletplugin helper does before preparing:
 * the kubelet names the claim, the API says what was allocated. Only {@code get} on
 * resourceclaims is needed.
 *
 * <p>The claim is read as a generic resource and only what the driver reads of it is copied into
 * the {@link ResourceClaim} it hands on: the metadata and {@code status.allocation}'s device
 * results. fabric8's typed reading would have Jackson introspect the claim's whole model, its
 * builders and serializers, which serve would keep for nothing (docs/benchmarks.md).
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

    /** @param claim its metadata and {@code status.allocation.devices.results}, nothing else */
    public record Found(ResourceClaim claim) implements Fetched {}

    public record Failed(String reason) implements Fetched {}

    public Fetched fetch(String namespace, String name) {
        String what = "ResourceClaim " + namespace + "/" + name;
        try {
            GenericKubernetesResource claim = client.genericKubernetesResources(CLAIMS).inNamespace(namespace).withName(name).get();
            return claim == null ? new Failed(what + " does not exist") : new Found(allocated(claim));
        } catch (KubernetesClientException e) {
            String status = e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "";
            return new Failed("cannot read " + what + status + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return new Failed("cannot read " + what + ": " + e);
        }
    }

    /** The metadata and the allocation's device results of {@code read}; a result that is not an object stays as an empty entry. */
    static ResourceClaim allocated(GenericKubernetesResource read) {
        ResourceClaim claim = new ResourceClaim();
        claim.setMetadata(read.getMetadata());
        Map<String, Object> allocation = JsonTree.map(read.getAdditionalProperties(), "status", "allocation");
        if (JsonTree.at(read.getAdditionalProperties(), "status", "allocation") == null) return claim;
        List<DeviceRequestAllocationResult> results = new ArrayList<>();
        for (Object r : JsonTree.list(allocation, "devices", "results")) {
            if (!(r instanceof Map<?, ?>)) {
                results.add(null);
                continue;
            }
            DeviceRequestAllocationResult result = new DeviceRequestAllocationResult();
            result.setRequest(JsonTree.text(r, "request"));
            result.setDriver(JsonTree.text(r, "driver"));
            result.setPool(JsonTree.text(r, "pool"));
            result.setDevice(JsonTree.text(r, "device"));
            if (JsonTree.at(r, "adminAccess") instanceof Boolean admin) result.setAdminAccess(admin);
            results.add(result);
        }
        DeviceAllocationResult devices = new DeviceAllocationResult();
        devices.setResults(results);
        AllocationResult result = new AllocationResult();
        result.setDevices(devices);
        ResourceClaimStatus status = new ResourceClaimStatus();
        status.setAllocation(result);
        claim.setStatus(status);
        return claim;
    }
}
