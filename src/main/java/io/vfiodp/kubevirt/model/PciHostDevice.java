package io.vfiodp.kubevirt.model;

/** One {@code pciHostDevices} entry. */
public class PciHostDevice extends UnknownFields {

    private String pciVendorSelector;
    private String resourceName;
    private Boolean externalResourceProvider;

    public String getPciVendorSelector() {
        return pciVendorSelector;
    }

    public void setPciVendorSelector(String pciVendorSelector) {
        this.pciVendorSelector = pciVendorSelector;
    }

    public String getResourceName() {
        return resourceName;
    }

    public void setResourceName(String resourceName) {
        this.resourceName = resourceName;
    }

    public Boolean getExternalResourceProvider() {
        return externalResourceProvider;
    }

    public void setExternalResourceProvider(Boolean externalResourceProvider) {
        this.externalResourceProvider = externalResourceProvider;
    }
}
