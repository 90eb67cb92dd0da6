package io.vfiodp.kubevirt.model;

/** One {@code mediatedDevices} entry. */
public class MediatedHostDevice extends UnknownFields {

    private String mdevNameSelector;
    private String resourceName;
    private Boolean externalResourceProvider;

    public String getMdevNameSelector() {
        return mdevNameSelector;
    }

    public void setMdevNameSelector(String mdevNameSelector) {
        this.mdevNameSelector = mdevNameSelector;
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
