package io.vfiodp.kube.kubevirt.model;

import java.util.List;

/** One {@code usb} entry: KubeVirt's own, read only so that a CR carrying some round-trips. */
public class UsbHostDevice extends PermittedDeviceEntry {

    private List<UsbSelector> selectors;

    public List<UsbSelector> getSelectors() {
        return selectors;
    }

    public void setSelectors(List<UsbSelector> selectors) {
        this.selectors = selectors;
    }
}
