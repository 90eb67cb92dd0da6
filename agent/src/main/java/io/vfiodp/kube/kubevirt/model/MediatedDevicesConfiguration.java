package io.vfiodp.kube.kubevirt.model;

import java.util.List;

/** {@code mediatedDevicesConfiguration}: the mdev types nodes should carry, for all nodes and per node selector. */
public class MediatedDevicesConfiguration extends MediatedTypeLists {

    private List<NodeMediatedDeviceTypes> nodeMediatedDeviceTypes;
    private Boolean enabled;

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
