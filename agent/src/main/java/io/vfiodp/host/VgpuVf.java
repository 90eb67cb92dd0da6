package io.vfiodp.host;

import java.util.List;
import java.util.Optional;

/**
 * An SR-IOV VF of an NVIDIA GPU in vendor-specific VFIO mode (Ada/Hopper and newer): bound to
 * {@code nvidia}, with {@code nvidia/current_vgpu_type}.
 *
 * @param currentTypeId {@code current_vgpu_type}; 0 = no vGPU placed
 * @param typeName      the name of the current type, looked up in this VF's or a sibling's
 *                      {@code creatable_vgpu_types}; empty when 0 or not found
 * @param creatable     what {@code creatable_vgpu_types} lists right now
 */
public record VgpuVf(PciAddress address, PciAddress physfn, int currentTypeId, Optional<String> typeName, List<VgpuType> creatable) {
    public VgpuVf {
        creatable = List.copyOf(creatable);
    }
}
