package io.vfiodp.kube.kubevirt.model;

import java.util.Map;

/** One {@code nodeMediatedDeviceTypes} entry: types for the nodes whose labels match {@code nodeSelector}. */
public class NodeMediatedDeviceTypes extends MediatedTypeLists {

    private Map<String, String> nodeSelector;

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }
}
