package io.vfiodp.kube.kubevirt;

import io.vfiodp.policy.config.DesiredMdevTypes;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.Objects;
import java.util.Optional;

/** What the KubeVirt CR says about host devices, as the watcher last read it. */
public sealed interface KubeVirtConfig {

    /** No KubeVirt CR exists: the plugin serves its {@code --config} file or default policy. */
    record NoCr() implements KubeVirtConfig {}

    /**
     * The KubeVirt CR in force.
     *
     * @param permittedHostDevices the CR's {@code permittedHostDevices}, empty when the CR has none
     *                             (then the plugin keeps its {@code --config} file or default policy)
     * @param mdevTypes            {@code mediatedDevicesConfiguration} resolved for this node
     */
    record FromCr(CrRef source, Optional<PermittedHostDevices> permittedHostDevices, DesiredMdevTypes mdevTypes)
            implements KubeVirtConfig {
        public FromCr {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(permittedHostDevices, "permittedHostDevices");
            Objects.requireNonNull(mdevTypes, "mdevTypes");
        }
    }
}
