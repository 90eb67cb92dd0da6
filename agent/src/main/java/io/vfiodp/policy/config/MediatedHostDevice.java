package io.vfiodp.policy.config;

/**
 * One {@code permittedHostDevices.mediatedDevices[]} entry, as written (absent strings are
 * empty; the policy validates it).
 *
 * @param mdevNameSelector matched, case-sensitively, against an mdev type's {@code name} with
 *                         every space replaced by {@code _}, as KubeVirt does
 */
public record MediatedHostDevice(String mdevNameSelector, String resourceName, boolean externalResourceProvider) {
    public MediatedHostDevice {
        mdevNameSelector = mdevNameSelector == null ? "" : mdevNameSelector;
        resourceName = resourceName == null ? "" : resourceName;
    }
}
