package io.vfiodp.kube.kubevirt.model;

/** One {@code mediatedDevices} entry. */
public class MediatedHostDevice extends PermittedDeviceEntry {

    private String mdevNameSelector;

    public String getMdevNameSelector() {
        return mdevNameSelector;
    }

    public void setMdevNameSelector(String mdevNameSelector) {
        this.mdevNameSelector = mdevNameSelector;
    }
}
