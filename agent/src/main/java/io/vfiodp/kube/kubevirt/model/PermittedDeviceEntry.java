package io.vfiodp.kube.kubevirt.model;

/**
 * What every {@code permittedHostDevices} entry has besides its selector: the resource name and whether an
 * external device plugin (this one) provides it rather than virt-handler.
 */
public abstract class PermittedDeviceEntry extends UnknownFields {

    private String resourceName;
    private Boolean externalResourceProvider;

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
