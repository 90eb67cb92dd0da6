package io.vfiodp.host.scan;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * SR-IOV vGPU VFs in NVIDIA's vendor-specific VFIO mode (Ada, Hopper and newer): VFs bound to
 * {@code nvidia}, not PFs, with {@code nvidia/current_vgpu_type}. VFs with type 0 are kept too:
 * they are where new vGPUs can be placed.
 */
final class VgpuVfReader {

    private static final String DRIVER = "nvidia";

    private final ConfinedTree sys;

    VgpuVfReader(ConfinedTree sys) {
        this.sys = sys;
    }

    /**
     * The vGPU files of one function, when it is such a VF; problems of its own files go to
     * {@code problems}. Names are resolved later, across siblings, by {@link #resolve}.
     */
    Optional<RawVf> readRaw(ScannedFunction.Found f, List<ScanProblem> problems) {
        PciFunction fn = f.function();
        if (!f.hasNvidiaDir() || !fn.isBoundTo(DRIVER) || fn.isPhysicalFunction()) return Optional.empty();
        try {
            Optional<RawVf> vf = readVf(f, problems);
            vf.ifPresent(v -> {
                for (String bad : v.creatable().badLines()) {
                    problems.add(new ScanProblem(v.shownAs() + "/nvidia/creatable_vgpu_types",
                            "line not understood, ignored: " + SysfsValues.quote(bad)));
                }
            });
            return vf;
        } catch (EntryUnreadable e) {
            problems.add(e.toProblem());
            return Optional.empty();
        }
    }

    /** The VFs with their current type's name, in the order given. */
    static List<VgpuVf> resolve(Collection<RawVf> raw, List<ScanProblem> problems) {
        // The creatable list shrinks as vGPUs are placed and is often empty on a VF that carries
        // one, so the current type's name may only be listed by a sibling VF of the same PF.
        Map<PciAddress, Map<Integer, String>> namesByPf = new HashMap<>();
        for (RawVf vf : raw) {
            Map<Integer, String> names = namesByPf.computeIfAbsent(vf.physfn(), pf -> new HashMap<>());
            for (VgpuType t : vf.creatable().types()) names.putIfAbsent(t.id(), t.name());
        }

        List<VgpuVf> vfs = new ArrayList<>();
        for (RawVf vf : raw) {
            Optional<String> name = Optional.empty();
            if (vf.currentType() != 0) {
                name = vf.creatable().nameOf(vf.currentType())
                        .or(() -> Optional.ofNullable(namesByPf.get(vf.physfn()).get(vf.currentType())));
                if (name.isEmpty()) {
                    problems.add(new ScanProblem(vf.shownAs() + "/nvidia/current_vgpu_type",
                            "vGPU type " + vf.currentType() + " is listed by no creatable_vgpu_types of this VF or its siblings; name unknown"));
                }
            }
            vfs.add(new VgpuVf(vf.address(), vf.physfn(), vf.currentType(), name, vf.creatable().types()));
        }
        return vfs;
    }

    private Optional<RawVf> readVf(ScannedFunction.Found f, List<ScanProblem> problems) throws EntryUnreadable {
        String shown = f.shownAs() + "/nvidia";
        String dir = sys.directory(f.dir(), "nvidia", shown);
        Set<String> names = new HashSet<>(List.of(sys.list(dir)));
        if (!names.contains("current_vgpu_type")) return Optional.empty();
        PciAddress physfn = f.function().physfn().orElseThrow(() -> new EntryUnreadable(f.shownAs(),
                "has nvidia/current_vgpu_type but no physfn link and no sriov_totalvfs: neither VF nor PF"));
        int current = SysfsValues.decimal(sys.attribute(dir, "current_vgpu_type", shown + "/current_vgpu_type"),
                0, Integer.MAX_VALUE, shown + "/current_vgpu_type");
        // The VF stays without the list: its current type is still known, and a sibling's
        // list can still name it.
        CreatableVgpuTypes creatable = new CreatableVgpuTypes(List.of(), List.of());
        try {
            creatable = CreatableVgpuTypes.parse(
                    sys.rawAttribute(dir, "creatable_vgpu_types", shown + "/creatable_vgpu_types"));
        } catch (EntryUnreadable e) {
            problems.add(new ScanProblem(e.path(), e.reason() + "; no creatable types recorded"));
        }
        return Optional.of(new RawVf(f.function().address(), f.shownAs(), physfn, current, creatable));
    }

    /** A VF's vGPU files as read, before its type's name is looked up among its siblings. */
    record RawVf(PciAddress address, String shownAs, PciAddress physfn, int currentType, CreatableVgpuTypes creatable) {}
}
