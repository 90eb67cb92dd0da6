package io.vfiodp.kube.kubevirt.model;

/** One {@code pciHostDevices} entry. */
public class PciHostDevice extends PermittedDeviceEntry {

    private String pciVendorSelector;

    public String getPciVendorSelector() {
        return pciVendorSelector;
    }

    public void setPciVendorSelector(String pciVendorSelector) {
        this.pciVendorSelector = pciVendorSelector;
    }
}
