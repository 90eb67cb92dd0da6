package io.vfiodp.policy.config;

/**
 * One {@code permittedHostDevices.pciHostDevices[]} entry, as written: the policy validates it
 * and skips a bad entry with an error rather than rejecting the whole configuration. Absent
 * strings are empty.
 *
 * @param pciVendorSelector        {@code VVVV:DDDD}, vendor and device id in hex, any case
 * @param externalResourceProvider {@code true}: we serve it; otherwise KubeVirt's virt-handler does
 */
public record PciHostDevice(String pciVendorSelector, String resourceName, boolean externalResourceProvider) {
    public PciHostDevice {
        pciVendorSelector = pciVendorSelector == null ? "" : pciVendorSelector;
        resourceName = resourceName == null ? "" : resourceName;
    }
}
