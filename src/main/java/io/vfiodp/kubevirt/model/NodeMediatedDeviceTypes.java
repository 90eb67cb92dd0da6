package io.vfiodp.kubevirt.model;

import java.util.List;
import java.util.Map;

/** One {@code nodeMediatedDeviceTypes} entry: types for the nodes whose labels match {@code nodeSelector}. */
public class NodeMediatedDeviceTypes extends UnknownFields {

    private Map<String, String> nodeSelector;
    private List<String> mediatedDeviceTypes;
    private List<String> mediatedDevicesTypes;

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

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
}
