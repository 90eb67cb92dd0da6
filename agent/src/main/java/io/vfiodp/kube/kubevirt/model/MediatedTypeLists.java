package io.vfiodp.kube.kubevirt.model;

import java.util.List;

/**
 * The mdev type lists KubeVirt accepts both for the whole cluster and per node selector
 * ({@code mediatedDevicesTypes} is the deprecated spelling of {@code mediatedDeviceTypes}).
 */
public abstract class MediatedTypeLists extends UnknownFields {

    private List<String> mediatedDeviceTypes;
    private List<String> mediatedDevicesTypes;

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
