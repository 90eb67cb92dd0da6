package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuVf;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether VFIO will hand out an IOMMU group: the kernel refuses a group ("group N is not
 * viable") while any member is driven by a host driver. QEMU reports that only when the VM
 * starts; checking it here marks the device Unhealthy before the kubelet allocates it.
 */
public final class GroupViability {

    private GroupViability() {}

    /** Why {@code group} is not viable for {@code device}, or empty when VFIO accepts it. */
    static Optional<String> whyNotViable(HostSnapshot snapshot, int group, PciAddress device) {
        List<PciFunction> blocking = blockingMates(snapshot, group, device);
        if (blocking.isEmpty()) return Optional.empty();
        PciFunction first = blocking.getFirst();
        return Optional.of("group " + group + " not viable: " + first.address() + " bound to " + first.driver().orElseThrow());
    }

    /**
     * The members of {@code group} other than {@code device} that keep VFIO from handing the group
     * out (each on a host driver), in address order; empty when the group is viable for it.
     */
    public static List<PciFunction> blockingMates(HostSnapshot snapshot, int group, PciAddress device) {
        Optional<IommuGroup> g = snapshot.group(group);
        if (g.isEmpty()) return List.of();
        List<PciFunction> blocking = new ArrayList<>();
        for (PciAddress member : g.get().members()) {
            if (member.equals(device)) continue;
            Optional<PciFunction> f = snapshot.function(member);
            if (f.isEmpty() || tolerated(f.get(), snapshot.vgpuVfs().get(member))) continue;
            blocking.add(f.get());
        }
        return List.copyOf(blocking);
    }

    /** A member VFIO lets share a group with a passed-through device. */
    static boolean tolerated(PciFunction f, VgpuVf vf) {
        if (f.driver().isEmpty()) return true;
        String driver = f.driver().get();
        if (PolicyEngine.isVfioDriver(driver) || driver.equals("pci-stub")) return true;
        // The kernel's vfio_dev_driver_allowed lets bridges and ports stay on pcieport.
        if (f.isPciBridge()) return true;
        // An SR-IOV vGPU VF with a vGPU is driven through nvidia's own VFIO variant.
        return vf != null && vf.currentTypeId() != 0;
    }
}
