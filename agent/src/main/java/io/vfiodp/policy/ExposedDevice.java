package io.vfiodp.policy;

import io.vfiodp.host.PciAddress;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One device as a resource advertises it.
 *
 * @param id               the ID sent to the kubelet: PCI address for PCI devices, UUID for mdevs
 * @param kind             PCI or mediated
 * @param pciAddress       the PCI function (for an mdev: its parent GPU)
 * @param iommuGroup       IOMMU group number; {@code /dev/vfio/<group>} is handed to the container
 * @param numaNode         NUMA node, -1 when the platform reports none
 * @param companions       other functions of the same IOMMU group that travel with this device
 *                         (HDMI audio, USB, UCSI); never advertised on their own
 * @param vfioCdev         iommufd character device name ({@code vfio3}) when the host has one
 * @param upstreamBridges  PCI bridges above the device, nearest first, for PCIe-switch affinity
 * @param health           healthy, or unhealthy with a reason
 */
public record ExposedDevice(
        String id,
        DeviceKind kind,
        PciAddress pciAddress,
        int iommuGroup,
        int numaNode,
        List<PciAddress> companions,
        Optional<String> vfioCdev,
        List<PciAddress> upstreamBridges,
        Health health) {

    /**
     * By {@link #id()}. A plain lambda, linked ahead of time in the AOT cache: {@code
     * Comparator.comparing} makes a serializable lambda, which the JVM spins at run time, in the
     * first pass.
     */
    public static final Comparator<ExposedDevice> BY_ID = (a, b) -> a.id().compareTo(b.id());

    public ExposedDevice {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(pciAddress, "pciAddress");
        Objects.requireNonNull(health, "health");
        if (id.isEmpty() || id.length() > 63) throw new IllegalArgumentException("device ID must be 1..63 characters: '" + id + "'");
        if (iommuGroup < 0) throw new IllegalArgumentException("device " + id + ": negative IOMMU group " + iommuGroup);
        if (numaNode < -1) throw new IllegalArgumentException("device " + id + ": NUMA node " + numaNode + " (use -1 for none)");
        companions = List.copyOf(companions);
        vfioCdev = Objects.requireNonNull(vfioCdev, "vfioCdev");
        upstreamBridges = List.copyOf(upstreamBridges);
    }

    public ExposedDevice withHealth(Health newHealth) {
        return new ExposedDevice(id, kind, pciAddress, iommuGroup, numaNode, companions, vfioCdev, upstreamBridges, newHealth);
    }
}
