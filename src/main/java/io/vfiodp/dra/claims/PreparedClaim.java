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
 */
public record PreparedClaim(String uid, String namespace, String name, Optional<String> podClaimName, List<PreparedDevice> devices) {

    public PreparedClaim {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(podClaimName, "podClaimName");
        devices = List.copyOf(devices);
    }

    public String describe() {
        return namespace + "/" + name + " (UID " + uid + ")";
    }
}
