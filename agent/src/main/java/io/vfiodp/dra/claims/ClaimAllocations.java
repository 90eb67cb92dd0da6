package io.vfiodp.dra.claims;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.model.JsonTree;
import io.vfiodp.policy.Health;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads what a ResourceClaim from the API allocates on this node for this driver, and refuses it,
 * saying why, when it cannot be prepared: replaced, not allocated, malformed, a device of another
 * node's pool or one this node does not offer through DRA, a device gone unhealthy, admin access.
 * Results of other drivers are theirs and ignored, as the kubelet asks each driver about its own.
 * The scheduler's claim of a pod's extended resources (KEP-5004) is told apart by its annotation
 * and checked the same way.
 */
public final class ClaimAllocations {

    /** What Kubernetes takes for a namespace (and a request, an annotation's value here). */
    public static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    /** What Kubernetes takes for a claim's name. */
    public static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** {@code resourceapi.PodResourceClaimAnnotation}: set on claims made from a pod's template. */
    public static final String POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name";
    /**
     * {@code resourceapi.ExtendedResourceClaimAnnotation}: {@code "true"} on the claim the scheduler
     * makes for a pod's extended resources backed by DRA (KEP-5004).
     */
    public static final String EXTENDED_RESOURCE_CLAIM = "resource.kubernetes.io/extended-resource-claim";

    private ClaimAllocations() {}

    /** A device the claim allocates, for the request (or {@code request/subrequest}) that got it. */
    public record Allocated(String request, DraDevice device) {}

    /**
     * @param extendedResources the scheduler made it for the pod's extended resources: its containers
     *                          want env variables as from Allocate, not KEP-5304 metadata
     */
    public record AllocatedClaim(String uid, String namespace, String name, Optional<String> podClaimName, List<Allocated> devices,
                                 boolean extendedResources) {
        public AllocatedClaim {
            devices = List.copyOf(devices);
        }
    }

    public sealed interface Outcome {}

    public record Accepted(AllocatedClaim claim) implements Outcome {}

    public record Refused(String reason) implements Outcome {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * @param uid the UID the kubelet named: a claim by the same name with another UID replaced it
     */
    public static Outcome check(GenericKubernetesResource claim, String uid, String driver, String pool, DriverView view) {
        var meta = claim.getMetadata();
        String ns = meta == null ? null : meta.getNamespace();
        String name = meta == null ? null : meta.getName();
        String what = "ResourceClaim " + ns + "/" + name;
        if (ns == null || !DNS_LABEL.matcher(ns).matches() || name == null || !DNS_SUBDOMAIN.matcher(name).matches()) {
            return new Refused(what + " is malformed: its namespace and name must be DNS names");
        }
        if (!uid.equals(meta.getUid())) {
            return new Refused(what + " has UID " + meta.getUid() + ", not " + uid + ": it was replaced");
        }
        Object allocation = JsonTree.at(claim.getAdditionalProperties(), "status", "allocation");
        if (allocation == null) return new Refused(what + " is not allocated");
        List<?> results = JsonTree.list(allocation, "devices", "results");
        List<Allocated> mine = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < results.size(); i++) {
            Object r = results.get(i);
            if (!(r instanceof Map<?, ?>)) return new Refused(what + " is malformed: allocation result " + i + " is empty");
            if (!driver.equals(JsonTree.text(r, "driver"))) continue;
            String at = what + " allocation result " + i;
            String request = JsonTree.text(r, "request");
            String resultPool = JsonTree.text(r, "pool");
            String deviceName = JsonTree.text(r, "device");
            if (blank(resultPool) || blank(deviceName) || blank(request)) {
                return new Refused(at + " is malformed: it lacks its " + (blank(request) ? "request" : blank(resultPool) ? "pool" : "device"));
            }
            if (!validRequest(request)) {
                return new Refused(at + " is malformed: request '" + request + "' is not a DNS label (or label/label)");
            }
            if (!pool.equals(resultPool)) {
                return new Refused(at + ": device " + deviceName + " is in pool " + resultPool + ", another node's; this node's pool is " + pool);
            }
            Optional<DraDevice> device = view.device(deviceName);
            if (device.isEmpty()) {
                return new Refused(at + ": device " + deviceName + " is not one this node offers through DRA");
            }
            if (Boolean.TRUE.equals(JsonTree.at(r, "adminAccess"))) {
                return new Refused(at + ": admin access to device " + deviceName + " is not supported: VFIO hands a device to one VM only");
            }
            if (device.get().device().health() instanceof Health.Unhealthy(String reason)) {
                return new Refused(at + ": device " + deviceName + " (" + device.get().device().id() + ") is unhealthy: " + reason);
            }
            if (!seen.add(deviceName)) {
                return new Refused(what + " is malformed: device " + deviceName + " is allocated twice");
            }
            mine.add(new Allocated(request, device.get()));
        }
        if (mine.isEmpty()) return new Refused(what + " allocates no device of driver " + driver);
        Map<String, String> annotations = meta.getAnnotations();
        Optional<String> pod = annotations == null ? Optional.empty() : Optional.ofNullable(annotations.get(POD_CLAIM_NAME));
        if (pod.isPresent() && !pod.get().isEmpty() && !DNS_LABEL.matcher(pod.get()).matches()) {
            return new Refused(what + " is malformed: annotation " + POD_CLAIM_NAME + " '" + pod.get() + "' is not a DNS label");
        }
        boolean extended = annotations != null && "true".equals(annotations.get(EXTENDED_RESOURCE_CLAIM));
        return new Accepted(new AllocatedClaim(uid, ns, name, pod, mine, extended));
    }

    private static boolean validRequest(String request) {
        int slash = request.indexOf('/');
        if (slash < 0) return DNS_LABEL.matcher(request).matches();
        return DNS_LABEL.matcher(request.substring(0, slash)).matches() && DNS_LABEL.matcher(request.substring(slash + 1)).matches();
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }
}
