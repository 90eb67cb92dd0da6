package io.vfiodp.dra.claims;

import java.util.Objects;
import java.util.Optional;

/**
 * A claim the kubelet asked to prepare, with what the API said about it: {@code fetched} is empty
 * when the claim was prepared already and the API was not asked.
 */
public record ClaimRequest(String namespace, String uid, String name, Optional<ClaimSource.Fetched> fetched) {

    public ClaimRequest {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(fetched, "fetched");
    }

    public String describe() {
        return namespace + "/" + name + " (UID " + uid + ")";
    }
}
