package io.vfiodp.dra.claims;

import java.util.Objects;

/** A claim as the kubelet names it when it unprepares it. */
public record ClaimRef(String namespace, String uid, String name) {

    public ClaimRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(name, "name");
    }

    public String describe() {
        return namespace + "/" + name + " (UID " + uid + ")";
    }
}
