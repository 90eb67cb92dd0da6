package io.vfiodp.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * What a DRA device is, beyond how a resource advertises it: the facts its ResourceSlice
 * attributes and its metadata file carry.
 *
 * @param kind        passthrough, mdev or SR-IOV vGPU
 * @param vendor      PCI vendor id; an mdev's parent's
 * @param device      PCI device id; an mdev's parent's
 * @param productName pci.ids model name, when known
 * @param pcieRoot    the PCIe root complex ({@code pci0000:3a}); an mdev's parent's
 * @param vgpuType    the vGPU type's name ({@code GRID T4-1Q}, {@code NVIDIA L40S-4Q})
 * @param vgpuTypeId  the type's id: the mdev type directory ({@code nvidia-222}) or the SR-IOV type number ({@code 1147})
 */
public record DeviceProfile(
        DraKind kind,
        int vendor,
        int device,
        Optional<String> productName,
        Optional<String> pcieRoot,
        Optional<String> vgpuType,
        Optional<String> vgpuTypeId) {

    public DeviceProfile {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(productName, "productName");
        Objects.requireNonNull(pcieRoot, "pcieRoot");
        Objects.requireNonNull(vgpuType, "vgpuType");
        Objects.requireNonNull(vgpuTypeId, "vgpuTypeId");
        if (vendor < 0 || vendor > 0xffff) throw new IllegalArgumentException("vendor id out of range: " + vendor);
        if (device < 0 || device > 0xffff) throw new IllegalArgumentException("device id out of range: " + device);
    }
}
