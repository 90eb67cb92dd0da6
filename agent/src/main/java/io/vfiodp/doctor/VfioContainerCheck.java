package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import java.util.List;

/**
 * {@code vfio.container}: {@code /dev/vfio/vfio} answers the VFIO API and offers a type1 IOMMU
 * backend, asked the way QEMU asks before it opens a group (the existing {@code VfioApiProbe}:
 * only the container is opened, never a group a VM may hold).
 */
final class VfioContainerCheck implements Check {

    static final String ID = "vfio.container";

    /** Where the container is missing or mute: VFIO itself first (its fix is vfio.modules's), else a pod's missing mount. */
    private static final Fix GET_VFIO = Fix.advice("see vfio.modules for VFIO itself; in a pod, mount the host's /dev/vfio");

    @Override
    public List<Finding> run(NodeView node) {
        Outcome outcome = switch (node.vfio()) {
            case Reading.Found<VfioAvailability>(VfioAvailability.Available a) -> new Outcome.Ok(a.describe());
            case Reading.Found<VfioAvailability>(VfioAvailability.Unavailable u) -> new Outcome.Fail(u.reason(), GET_VFIO);
            case Reading.Unreadable<VfioAvailability> u -> new Outcome.Warn("not asked: " + u.describe(),
                    Fix.advice("run `vfio-device-plugin doctor` as root on the host to ask it; VMs get the devices through Allocate either way"));
            case Reading.Absent<VfioAvailability> a -> new Outcome.Fail(a.file() + " does not exist", GET_VFIO);
        };
        return List.of(Finding.of(ID, outcome));
    }
}
