package io.vfiodp.doctor;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code device.vgpu}: for a GPU on nvidia that can host vGPUs, what exists and what can still be
 * created: mdev types with instances left, or, on an SR-IOV PF (Ada, Hopper and newer), its VFs and
 * the types a free VF can take.
 */
final class VgpuCheck implements DeviceCheck {

    static final String ID = "device.vgpu";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        if (!Devices.vgpuCapable(node.host(), f)) return Optional.empty();
        MdevParent parent = node.host().mdevParents().get(f.address());
        return Optional.of(parent != null ? mdev(node.host(), parent) : sriov(node.host(), f));
    }

    private static Outcome mdev(HostSnapshot host, MdevParent parent) {
        Map<String, Integer> existing = new TreeMap<>();
        for (MdevInstance m : host.mdevs().values()) {
            if (m.parent().equals(parent.address())) existing.merge(m.typeName(), 1, Integer::sum);
        }
        List<String> creatable = new ArrayList<>();
        for (MdevType t : parent.types()) {
            if (t.availableInstances() > 0) creatable.add(t.displayName() + " x" + t.availableInstances());
        }
        if (existing.isEmpty() && creatable.isEmpty()) {
            return new Outcome.Warn("mdev: " + parent.types().size() + " types offered, none can be created now",
                    Fix.advice("check the vGPU manager (nvidia-smi vgpu) and that nothing else uses the GPU"));
        }
        return new Outcome.Ok("mdev: " + (existing.isEmpty() ? "no vGPUs yet" : counted(existing) + " exist")
                + "; can create " + (creatable.isEmpty() ? "no more" : String.join(", ", creatable)));
    }

    private static Outcome sriov(HostSnapshot host, PciFunction pf) {
        if (pf.virtfns().isEmpty()) {
            return new Outcome.Warn("SR-IOV vGPU: no VFs enabled",
                    Fix.now("enable its VFs (NVIDIA's vGPU manager does it at boot through its sriov-manage service)",
                            List.of("/usr/lib/nvidia/sriov-manage -e " + pf.address())));
        }
        Map<String, Integer> placed = new TreeMap<>();
        TreeSet<String> takes = new TreeSet<>();
        int free = 0;
        for (PciAddress a : pf.virtfns()) {
            VgpuVf vf = host.vgpuVfs().get(a);
            if (vf == null) continue;
            if (vf.currentTypeId() != 0) {
                placed.merge(vf.typeName().orElse("type " + vf.currentTypeId()), 1, Integer::sum);
            } else {
                free++;
                vf.creatable().stream().map(VgpuType::name).forEach(takes::add);
            }
        }
        String shown = "SR-IOV vGPU: " + pf.virtfns().size() + " VFs, " + (placed.isEmpty() ? "none with a vGPU" : counted(placed)) + "; "
                + free + " free";
        if (free > 0 && takes.isEmpty()) {
            return new Outcome.Warn(shown + ", and none can take a vGPU type now",
                    Fix.advice("the types placed already limit what fits: see each VF's nvidia/creatable_vgpu_types"));
        }
        return new Outcome.Ok(shown + (takes.isEmpty() ? "" : ", which can take " + String.join(", ", takes)));
    }

    private static String counted(Map<String, Integer> byName) {
        return byName.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "));
    }
}
