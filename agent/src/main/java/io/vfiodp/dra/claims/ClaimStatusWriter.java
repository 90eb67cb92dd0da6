package io.vfiodp.dra.claims;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.dra.model.DeviceAttributes;
import io.vfiodp.dra.model.JsonTree;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.Worker;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what a VM got into its ResourceClaim's {@code status.devices} (KEP-4817), after the
 * kubelet's prepare is answered, on the driver's API thread: per device of ours, the driver, pool
 * and device, a {@code Ready} condition and as {@code data} the PCI address or mdev UUID, the IOMMU
 * group and the resource name, so that {@code kubectl get resourceclaim -o yaml} shows them.
 *
 * <p>It reads the claim ({@code get} on {@code resourceclaims}, as the prepare does) and patches
 * the status subresource's devices ({@code patch} on {@code resourceclaims/status}) with the UID
 * and resource version read as preconditions, so that nothing another writer put there meanwhile
 * is lost: on a conflict it reads again. The entries of other drivers stay as they are; writing the same again writes nothing; a
 * claim whose UID is not the prepared one's (deleted and made again) is left alone. A write the
 * API refuses is logged once per kind of refusal and never fails anything: the VM has its devices
 * either way.
 *
 * <p>The claim is read and its devices written as JSON trees (a generic resource, maps), not
 * through fabric8's typed model, which Jackson would introspect whole for a few fields
 * (docs/benchmarks.md).
 */
public final class ClaimStatusWriter {

    /** metav1.Condition's reason: CamelCase. */
    static final String REASON = "Prepared";
    /** Reads and writes, when another writer keeps coming in between. */
    private static final int ATTEMPTS = 3;
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final KubernetesClient client;
    private final String driver;
    private final Worker thread;
    private final Clock clock;
    // confined to the worker
    private final ProblemLog refused = new ProblemLog(log);

    /** @param thread the driver's API thread; its owner closes it */
    public ClaimStatusWriter(KubernetesClient client, String driver, Worker thread, Clock clock) {
        this.client = client;
        this.driver = driver;
        this.thread = thread;
        this.clock = clock;
    }

    /** Writes {@code claim}'s devices into its status, later, on the API thread; returns at once. */
    public void prepared(PreparedClaim claim) {
        thread.offer(() -> write(claim));
    }

    private void write(PreparedClaim claim) {
        try {
            for (int attempt = 1; !tryWrite(claim) && attempt < ATTEMPTS; attempt++) {
                // another writer (the scheduler, another driver) came between the read and the write: read again
            }
            refused.resolved("DRA: ResourceClaim status is written again (" + claim.describe() + ")");
        } catch (KubernetesClientException e) {
            String why = e.getCode() > 0 ? "HTTP " + e.getCode() : e.getClass().getSimpleName();
            refused.problem(why, "DRA: cannot write the device status of ResourceClaim " + claim.describe() + " (" + why + ": " + e.getMessage()
                    + "); the claim is prepared all the same, and its status stays without our devices until the API takes it"
                    + (e.getCode() == 403 ? " (the driver's ClusterRole needs update on resourceclaims/status: deploy/dra)" : ""));
        } catch (RuntimeException e) {
            refused.problem(e.toString(), "DRA: cannot write the device status of ResourceClaim " + claim.describe() + ": " + e
                    + "; the claim is prepared all the same");
        }
    }

    /** Reads the claim and writes its status with our devices; false when another write came in between (HTTP 409). */
    private boolean tryWrite(PreparedClaim claim) {
        var claims = client.genericKubernetesResources(ClaimSource.CLAIMS).inNamespace(claim.namespace());
        GenericKubernetesResource current = claims.withName(claim.name()).get();
        // gone, or deleted and made again under the name: not the claim that was prepared
        if (current == null || !claim.uid().equals(current.getMetadata().getUid())) return true;
        List<?> before = JsonTree.list(current.getAdditionalProperties(), "status", "devices");
        List<Object> after = devices(claim, before);
        if (after.equals(before)) return true;
        // Only status.devices, with the UID and resource version read as preconditions: a write that comes after the claim was
        // deleted and made again under its name (or changed by another writer) is refused (409) instead of putting this claim's
        // status, allocation included, over the new one's.
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("uid", current.getMetadata().getUid());
        metadata.put("resourceVersion", current.getMetadata().getResourceVersion());
        Map<String, Object> patch = new LinkedHashMap<>();
        patch.put("metadata", metadata);
        patch.put("status", Map.of("devices", after));
        try {
            claims.withName(claim.name()).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(patch));
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) return false;
            throw e;
        }
    }

    /**
     * The status entries of other drivers as they are, then one per device of {@code claim}; an
     * entry of ours already Ready keeps the time it became so.
     */
    List<Object> devices(PreparedClaim claim, List<?> current) {
        List<Object> out = new ArrayList<>();
        Map<String, String> readySince = new HashMap<>();
        for (Object d : current) {
            if (!driver.equals(JsonTree.text(d, "driver"))) {
                out.add(d);
                continue;
            }
            for (Object c : JsonTree.list(d, "conditions")) {
                if ("Ready".equals(JsonTree.text(c, "type")) && "True".equals(JsonTree.text(c, "status"))) {
                    readySince.put(JsonTree.text(d, "pool") + "/" + JsonTree.text(d, "device"), JsonTree.text(c, "lastTransitionTime"));
                }
            }
        }
        String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
        for (PreparedDevice d : claim.devices()) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("lastTransitionTime", readySince.getOrDefault(d.pool() + "/" + d.device(), now));
            ready.put("message", "prepared for request " + d.request() + ": " + String.join(", ", d.vfioPaths()));
            ready.put("reason", REASON);
            ready.put("status", "True");
            ready.put("type", "Ready");
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("conditions", List.of(ready));
            device.put("data", data(d));
            device.put("device", d.device());
            device.put("driver", driver);
            device.put("pool", d.pool());
            out.add(device);
        }
        return out;
    }

    /** What names the device on the host: its PCI address or mdev UUID (and parent), its IOMMU group, and the resource it is offered as. */
    static Map<String, Object> data(PreparedDevice d) {
        Map<String, Object> data = new LinkedHashMap<>();
        if (d.attributes().get(DeviceAttributes.MDEV_UUID) instanceof AttributeValue.Text uuid) {
            data.put("mdevUUID", uuid.value());
            if (d.attributes().get("parentPCIBusID") instanceof AttributeValue.Text parent) data.put("parentPCIBusID", parent.value());
        } else {
            data.put("pciBusID", d.deviceId());
        }
        if (d.attributes().get("iommuGroup") instanceof AttributeValue.Int group) data.put("iommuGroup", Math.toIntExact(group.value()));
        if (d.attributes().get("resourceName") instanceof AttributeValue.Text resource) data.put("resourceName", resource.value());
        return data;
    }
}
