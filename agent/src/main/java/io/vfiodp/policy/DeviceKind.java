package io.vfiodp.policy;

/**
 * How KubeVirt consumes a resource's devices. SR-IOV vGPU VFs are {@link #PCI}: KubeVirt treats
 * them as PCI host devices ({@code PCI_RESOURCE_*}).
 */
public enum DeviceKind {
    PCI("PCI_RESOURCE"),
    MDEV("MDEV_PCI_RESOURCE");

    private final String envPrefix;

    DeviceKind(String envPrefix) {
        this.envPrefix = envPrefix;
    }

    /** KubeVirt's env-var prefix for this kind. */
    public String envPrefix() {
        return envPrefix;
    }
}
