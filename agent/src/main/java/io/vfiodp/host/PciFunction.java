package io.vfiodp.host;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One PCI function as sysfs shows it under {@code bus/pci/devices/<address>}.
 *
 * @param classCode       the 24-bit class ({@code 0x030200} = 3D controller)
 * @param driver          basename of the {@code driver} link, empty when unbound
 * @param iommuGroup      number from the {@code iommu_group} link, empty without an IOMMU
 * @param numaNode        {@code numa_node}, -1 when none
 * @param physfn          for an SR-IOV VF: its PF
 * @param virtfns         for a PF: its VFs, by {@code virtfnN} index order
 * @param sriovTotalVfs   present only on PFs ({@code sriov_totalvfs})
 * @param vfioCdev        iommufd char device name from {@code vfio-dev/vfioN}
 * @param upstreamBridges PCI functions above this one in the device tree, nearest first
 * @param pcieRoot        the root complex the function sits below ({@code pci0000:3a}): the first
 *                        directory under {@code devices/} its sysfs directory lies in, as Kubernetes'
 *                        {@code resource.kubernetes.io/pcieRoot} attribute names it; empty when that
 *                        directory is not a {@code pci*} root (a platform bus)
 */
public record PciFunction(
        PciAddress address,
        int vendor,
        int device,
        int subsystemVendor,
        int subsystemDevice,
        int classCode,
        int revision,
        Optional<String> driver,
        OptionalInt iommuGroup,
        int numaNode,
        boolean bootVga,
        Optional<PciAddress> physfn,
        List<PciAddress> virtfns,
        OptionalInt sriovTotalVfs,
        Optional<String> vfioCdev,
        List<PciAddress> upstreamBridges,
        Optional<String> pcieRoot) {

    public static final int VENDOR_NVIDIA = 0x10de;
    private static final int CLASS_PCI_BRIDGE = 0x0604;
    private static final int CLASS_NVSWITCH = 0x0680;

    public PciFunction {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(iommuGroup, "iommuGroup");
        Objects.requireNonNull(physfn, "physfn");
        Objects.requireNonNull(sriovTotalVfs, "sriovTotalVfs");
        Objects.requireNonNull(vfioCdev, "vfioCdev");
        virtfns = List.copyOf(virtfns);
        upstreamBridges = List.copyOf(upstreamBridges);
        Objects.requireNonNull(pcieRoot, "pcieRoot");
    }

    /** {@code 10de:1eb8} as selectors and tools print it. */
    public String vendorDevice() {
        return Hex.of(vendor, 4) + ":" + Hex.of(device, 4);
    }

    public int baseClass() {
        return (classCode >> 16) & 0xff;
    }

    /** A PCI-to-PCI bridge or port (class 0x0604), which VFIO lets stay on its host driver in a passed-through group. */
    public boolean isPciBridge() {
        return (classCode >> 8) == CLASS_PCI_BRIDGE;
    }

    /** An NVIDIA NVSwitch (class 0x0680, NVIDIA's vendor id). */
    public boolean isNvSwitch() {
        return vendor == VENDOR_NVIDIA && (classCode >> 8) == CLASS_NVSWITCH;
    }

    public boolean isPhysicalFunction() {
        return sriovTotalVfs.isPresent();
    }

    public boolean isBoundTo(String name) {
        return driver.map(name::equals).orElse(false);
    }
}
