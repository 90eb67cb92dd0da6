package io.vfiodp.dra.claims;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A claim this driver prepared: what the checkpoint keeps until the kubelet unprepares it.
 *
 * @param podClaimName the pod's name for a claim made from a template (the claim's
 *                     {@code resource.kubernetes.io/pod-claim-name} annotation), which is where
 *                     the metadata file is mounted for such claims
 * @param extended     for the scheduler's claim of a pod's extended resources (KEP-5004), what each
 *                     request's container gets, in the claim's request order; empty for any other
 *                     claim, whose containers get KEP-5304 metadata instead
 */
public record PreparedClaim(String uid, String namespace, String name, Optional<String> podClaimName, List<PreparedDevice> devices,
                            List<RequestEdits> extended) {

    public PreparedClaim {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(podClaimName, "podClaimName");
        devices = List.copyOf(devices);
        extended = List.copyOf(extended);
    }

    /** An ordinary claim: its containers read KEP-5304 metadata. */
    public PreparedClaim(String uid, String namespace, String name, Optional<String> podClaimName, List<PreparedDevice> devices) {
        this(uid, namespace, name, podClaimName, devices, List.of());
    }

    /** The scheduler's claim of a pod's extended resources: its containers get env variables, as from Allocate. */
    public boolean forExtendedResources() {
        return !extended.isEmpty();
    }

    /** The claim as the kubelet names it: the names its files were written under. */
    public ClaimRef ref() {
        return new ClaimRef(namespace, uid, name);
    }

    public String describe() {
        return ref().describe();
    }
}
