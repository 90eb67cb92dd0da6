package io.vfiodp.kube.kubevirt.model;

/** {@code spec} of the KubeVirt CR. */
public class KubeVirtSpec extends UnknownFields {

    private KubeVirtConfiguration configuration;

    public KubeVirtConfiguration getConfiguration() {
        return configuration;
    }

    public void setConfiguration(KubeVirtConfiguration configuration) {
        this.configuration = configuration;
    }
}
