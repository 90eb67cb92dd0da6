package io.vfiodp.node;

import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.ExposedDevice;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The host's VFIO device nodes a container needs to use some devices: what a device plugin's
 * Allocate and a DRA prepare both hand out, so that a device gives a VM the same nodes whichever
 * side served it. A function of the devices and the {@code /dev} side a {@link TargetState} holds.
 */
public final class VfioPaths {

    public static final String VFIO_CONTAINER = "/dev/vfio/vfio";
    public static final String IOMMU = "/dev/iommu";

    private VfioPaths() {}

    /**
     * The host paths, deduplicated, in this order: {@code /dev/vfio/vfio}, each device's
     * {@code /dev/vfio/<group>}, then (on iommufd hosts, and only where the scan saw them)
     * {@code /dev/iommu} and {@code /dev/vfio/devices/vfioN}.
     */
    public static List<String> of(List<ExposedDevice> devices, DevNodes devNodes) {
        Set<String> paths = new LinkedHashSet<>();
        paths.add(VFIO_CONTAINER);
        for (ExposedDevice d : devices) paths.add("/dev/vfio/" + d.iommuGroup());
        if (devNodes.iommu()) paths.add(IOMMU);
        for (ExposedDevice d : devices) {
            d.vfioCdev().filter(devNodes.vfioCdevs()::contains).ifPresent(cdev -> paths.add("/dev/vfio/devices/" + cdev));
        }
        return List.copyOf(paths);
    }
}
