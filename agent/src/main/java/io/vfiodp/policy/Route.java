package io.vfiodp.policy;

/**
 * How a resource's devices reach a pod: through the kubelet's device plugins (a resource limit,
 * env variables) or through Dynamic Resource Allocation (a ResourceClaim, CDI devices, a
 * metadata file). Never both for one device: the kubelet and the scheduler would each hand it out.
 */
public enum Route {
    DEVICE_PLUGIN("device-plugin"),
    DRA("dra");

    private final String label;

    Route(String label) {
        this.label = label;
    }

    /** {@code device-plugin} or {@code dra}, as the inventory prints it. */
    public String label() {
        return label;
    }
}
