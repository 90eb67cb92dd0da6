package io.vfiodp.kubevirt.model;

import java.util.List;

/** One {@code usb} entry: KubeVirt's own, read only so that a CR carrying some round-trips. */
public class UsbHostDevice extends UnknownFields {

    private String resourceName;
    private List<UsbSelector> selectors;
    private Boolean externalResourceProvider;

    public String getResourceName() {
        return resourceName;
    }

    public void setResourceName(String resourceName) {
        this.resourceName = resourceName;
    }

    public List<UsbSelector> getSelectors() {
        return selectors;
    }

    public void setSelectors(List<UsbSelector> selectors) {
        this.selectors = selectors;
    }

    public Boolean getExternalResourceProvider() {
        return externalResourceProvider;
    }

    public void setExternalResourceProvider(Boolean externalResourceProvider) {
        this.externalResourceProvider = externalResourceProvider;
    }
}
