package io.vfiodp.kube.kubevirt.model;

import java.util.List;

/** {@code permittedHostDevices}: host devices VMs may be given; entries with {@code externalResourceProvider} are served by a plugin such as this one. */
public class PermittedHostDevices extends UnknownFields {

    private List<PciHostDevice> pciHostDevices;
    private List<MediatedHostDevice> mediatedDevices;
    private List<UsbHostDevice> usb;

    public List<PciHostDevice> getPciHostDevices() {
        return pciHostDevices;
    }

    public void setPciHostDevices(List<PciHostDevice> pciHostDevices) {
        this.pciHostDevices = pciHostDevices;
    }

    public List<MediatedHostDevice> getMediatedDevices() {
        return mediatedDevices;
    }

    public void setMediatedDevices(List<MediatedHostDevice> mediatedDevices) {
        this.mediatedDevices = mediatedDevices;
    }

    public List<UsbHostDevice> getUsb() {
        return usb;
    }

    public void setUsb(List<UsbHostDevice> usb) {
        this.usb = usb;
    }
}
