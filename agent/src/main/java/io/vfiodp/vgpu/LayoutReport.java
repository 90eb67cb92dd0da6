package io.vfiodp.vgpu;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.VgpuVf;
import io.vfiodp.policy.config.DesiredMdevTypes;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Desired versus actual vGPU types per physical GPU, and the writes that would close the gap. */
public final class LayoutReport {

    private LayoutReport() {}

    /** One table row per GPU that offers or carries vGPUs. */
    public static String table(HostSnapshot snapshot, DesiredMdevTypes desired) {
        SortedMap<PciAddress, String> assigned = LayoutPlanner.assignments(snapshot, desired.types());
        StringBuilder sb = new StringBuilder();
        sb.append("vGPU layout: desired ").append(desired.types().isEmpty() ? "(none)" : String.join(", ", desired.types()))
                .append(" from ").append(desired.origin()).append(desired.creationEnabled() ? "" : " (enabled: false, not managed)").append('\n');
        sb.append(String.format("%-14s %-6s %-24s %s%n", "GPU", "KIND", "DESIRED", "ACTUAL"));
        for (MdevParent p : snapshot.mdevParents().values()) {
            SortedMap<String, Integer> counts = new TreeMap<>();
            for (MdevInstance m : snapshot.mdevs().values()) if (m.parent().equals(p.address())) counts.merge(m.typeName(), 1, Integer::sum);
            sb.append(row(p.address(), "mdev", assigned.get(p.address()), counts, -1));
        }
        SortedMap<PciAddress, SortedMap<String, Integer>> byGpu = new TreeMap<>();
        SortedMap<PciAddress, Integer> free = new TreeMap<>();
        for (VgpuVf vf : snapshot.vgpuVfs().values()) {
            SortedMap<String, Integer> counts = byGpu.computeIfAbsent(vf.physfn(), a -> new TreeMap<>());
            if (vf.currentTypeId() == 0) free.merge(vf.physfn(), 1, Integer::sum);
            else counts.merge(vf.typeName().orElse("type " + vf.currentTypeId()), 1, Integer::sum);
        }
        for (Map.Entry<PciAddress, SortedMap<String, Integer>> e : byGpu.entrySet()) {
            sb.append(row(e.getKey(), "sriov", assigned.get(e.getKey()), e.getValue(), free.getOrDefault(e.getKey(), 0)));
        }
        return sb.toString();
    }

    private static String row(PciAddress gpu, String kind, String desired, SortedMap<String, Integer> counts, int freeVfs) {
        StringBuilder actual = new StringBuilder();
        counts.forEach((name, n) -> actual.append(actual.isEmpty() ? "" : ", ").append(n).append(" x ").append(name));
        if (freeVfs >= 0) actual.append(actual.isEmpty() ? "" : ", ").append(freeVfs).append(" free VF(s)");
        if (actual.isEmpty()) actual.append("-");
        return String.format("%-14s %-6s %-24s %s%n", gpu, kind, desired == null ? "-" : desired, actual);
    }

    /** The {@code --dry-run} listing of planned writes. */
    public static String plan(List<PlannedWrite> writes, Allocated allocated) {
        StringBuilder sb = new StringBuilder();
        sb.append("planned writes: ").append(writes.size()).append('\n');
        for (PlannedWrite w : writes) sb.append("  ").append(w.describe()).append('\n');
        if (writes.stream().anyMatch(w -> w instanceof PlannedWrite.SetVgpuType)) {
            sb.append("note: one VF per SR-IOV GPU is shown; the others follow, each as its creatable_vgpu_types then allows\n");
        }
        if (allocated instanceof Allocated.Unknown u) {
            sb.append("note: nothing is planned for removal: ").append(u.reason()).append('\n');
        }
        return sb.toString();
    }
}
