package io.vfiodp.kubevirt.model;

import java.util.List;

/** {@code mediatedDevicesConfiguration}: the mdev types nodes should carry ({@code mediatedDevicesTypes} is the deprecated spelling). */
public class MediatedDevicesConfiguration extends UnknownFields {

    private List<String> mediatedDeviceTypes;
    private List<String> mediatedDevicesTypes;
    private List<NodeMediatedDeviceTypes> nodeMediatedDeviceTypes;
    private Boolean enabled;

    public List<String> getMediatedDeviceTypes() {
        return mediatedDeviceTypes;
    }

    public void setMediatedDeviceTypes(List<String> mediatedDeviceTypes) {
        this.mediatedDeviceTypes = mediatedDeviceTypes;
    }

    public List<String> getMediatedDevicesTypes() {
        return mediatedDevicesTypes;
    }

    public void setMediatedDevicesTypes(List<String> mediatedDevicesTypes) {
        this.mediatedDevicesTypes = mediatedDevicesTypes;
    }

    public List<NodeMediatedDeviceTypes> getNodeMediatedDeviceTypes() {
        return nodeMediatedDeviceTypes;
    }

    public void setNodeMediatedDeviceTypes(List<NodeMediatedDeviceTypes> nodeMediatedDeviceTypes) {
        this.nodeMediatedDeviceTypes = nodeMediatedDeviceTypes;
    }

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }
}
