package io.vfiodp.kube.kubevirt;

import java.util.Objects;

/** Which KubeVirt custom resource a configuration came from. */
public record CrRef(String namespace, String name) {
    public CrRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
