package io.vfiodp.policy;

/**
 * What a DRA device is, as its {@code kind} attribute and the DeviceClasses name it. Finer than
 * {@link DeviceKind}: KubeVirt takes an SR-IOV vGPU VF like a passed-through function, but a
 * claim usually wants one or the other.
 */
public enum DraKind {
    PASSTHROUGH("passthrough"),
    MDEV("mdev"),
    SRIOV_VGPU("sriov-vgpu");

    private final String label;

    DraKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
