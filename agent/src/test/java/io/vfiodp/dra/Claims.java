package io.vfiodp.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;

/** ResourceClaims as the scheduler leaves them: allocated, with the results of each driver. */
public final class Claims {

    static final String NAMESPACE = "vms";

    private Claims() {}

    public static DeviceRequestAllocationResult result(String request, String driver, String pool, String device) {
        return new DeviceRequestAllocationResultBuilder().withRequest(request).withDriver(driver).withPool(pool).withDevice(device).build();
    }

    /** Ours: request {@code gpu}, this node's pool. */
    public static DeviceRequestAllocationResult ours(String device) {
        return result("gpu", DraNodes.DRIVER, DraNodes.NODE, device);
    }

    public static ResourceClaim allocated(String name, String uid, DeviceRequestAllocationResult... results) {
        return new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(NAMESPACE).withName(name).withUid(uid).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withNewAllocation().withNewDevices().withResults(List.of(results)).endDevices().endAllocation().endStatus()
                .build();
    }

    /** Made from a template for the pod's claim {@code podClaimName}, as the resourceclaim controller annotates it. */
    static ResourceClaim fromTemplate(String name, String uid, String podClaimName, DeviceRequestAllocationResult... results) {
        ResourceClaim c = allocated(name, uid, results);
        c.getMetadata().setAnnotations(Map.of("resource.kubernetes.io/pod-claim-name", podClaimName));
        return c;
    }

    /** {@code claim} as the driver reads it from the API: a generic resource, a JSON tree. */
    public static GenericKubernetesResource asRead(ResourceClaim claim) {
        return Serialization.unmarshal(Serialization.asJson(claim), GenericKubernetesResource.class);
    }

    /**
     * Stores {@code claim} in the mock API as it is, status included (the CRUD mock keeps what it is
     * given), and returns it as stored.
     */
    public static ResourceClaim create(KubernetesClient client, ResourceClaim claim) {
        return client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(claim.getMetadata().getNamespace()).resource(claim).create();
    }
}
