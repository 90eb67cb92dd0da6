package io.vfiodp.kube.kubevirt.model;

/** {@code spec.configuration}: KubeVirt's cluster-wide settings, of which the plugin reads two blocks. */
public class KubeVirtConfiguration extends UnknownFields {

    private PermittedHostDevices permittedHostDevices;
    private MediatedDevicesConfiguration mediatedDevicesConfiguration;

    public PermittedHostDevices getPermittedHostDevices() {
        return permittedHostDevices;
    }

    public void setPermittedHostDevices(PermittedHostDevices permittedHostDevices) {
        this.permittedHostDevices = permittedHostDevices;
    }

    public MediatedDevicesConfiguration getMediatedDevicesConfiguration() {
        return mediatedDevicesConfiguration;
    }

    public void setMediatedDevicesConfiguration(MediatedDevicesConfiguration mediatedDevicesConfiguration) {
        this.mediatedDevicesConfiguration = mediatedDevicesConfiguration;
    }
}
