package io.vfiodp.kube.kubevirt.model;

/** {@code status} of the KubeVirt CR: KubeVirt rewrites it often, and those writes are no configuration change. */
public class KubeVirtStatus extends UnknownFields {

    private String phase;

    public String getPhase() {
        return phase;
    }

    public void setPhase(String phase) {
        this.phase = phase;
    }
}
