package io.vfiodp.vgpu;

import io.vfiodp.policy.PermittedSelectors;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.VgpuVf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Decides the sysfs writes that move the host toward the desired vGPU types. Pure: the same
 * snapshot, desired list, ownership and allocations give the same writes (UUIDs aside).
 *
 * <p><b>Matching.</b> A desired entry names a type by its {@code name} with every space as
 * {@code _} ({@code GRID_T4-1Q}, KubeVirt's rule), or by its id: the mdev type directory
 * ({@code nvidia-230}) or the SR-IOV numeric id ({@code 1150}).
 *
 * <p><b>One type per physical GPU, spread deterministically.</b> Classic mdev parents and SR-IOV
 * GPUs (the VFs' physical function) are planned separately, each set in PCI address order; a GPU
 * is eligible when it offers at least one desired type. A GPU that already carries vGPUs of a
 * desired type (whoever made them) keeps that type, so a restart or a partial layout never
 * churns. Every other eligible GPU, the n-th in address order (n counted from 0 over all
 * eligible GPUs of its kind), takes the desired list rotated to start at entry {@code n mod k}
 * ({@code k} desired types) and uses the first entry it offers. Three desired types on four
 * identical GPUs thus give A, B, C, A.
 *
 * <p><b>Filling.</b> An mdev parent gets {@code available_instances} new instances of its type,
 * only when it carries no instance of another type (vendors allow one type per GPU; a foreign or
 * allocated instance of another type therefore blocks the GPU). An SR-IOV GPU gets one
 * {@link PlannedWrite.SetVgpuType} per plan, on its first free VF (type 0) in address order whose
 * {@code creatable_vgpu_types} lists the type: the driver shrinks every sibling's list as types
 * are placed, so the caller rescans and plans again after each round until the plan is empty.
 *
 * <p><b>Removing.</b> Only vGPUs in {@link OwnedDevices} that {@link Allocated} proves free, and
 * only when they are not of their GPU's assigned type (or no type is desired any more). An SR-IOV
 * VF whose type no sibling's {@code creatable_vgpu_types} names any more (all VFs placed) is left
 * alone: its type cannot be matched against the desired names.
 */
public final class LayoutPlanner {

    private final Supplier<String> uuids;

    public LayoutPlanner(Supplier<String> uuids) {
        this.uuids = uuids;
    }

    public List<PlannedWrite> plan(HostSnapshot snapshot, List<String> desired, OwnedDevices owned, Allocated allocated) {
        List<PlannedWrite> writes = new ArrayList<>();
        planMdevs(snapshot, desired, owned, allocated, writes);
        planVgpuVfs(snapshot, desired, owned, allocated, writes);
        return List.copyOf(writes);
    }

    /** The type each GPU should carry, as {@link #plan} decides it: for {@code inventory}. */
    public static SortedMap<PciAddress, String> assignments(HostSnapshot snapshot, List<String> desired) {
        SortedMap<PciAddress, String> out = new TreeMap<>();
        mdevAssignments(snapshot, desired).forEach((p, t) -> out.put(p, t.displayName()));
        vfAssignments(snapshot, desired).forEach((p, t) -> out.put(p, t.name()));
        return out;
    }

    /**
     * GPUs that cannot take their assigned type because they carry vGPUs of another type that
     * are not ours or are in use, one line each: the layout is then not reached, by design.
     */
    public static List<String> blocked(HostSnapshot snapshot, List<String> desired) {
        List<String> out = new ArrayList<>();
        mdevAssignments(snapshot, desired).forEach((parent, type) -> instancesOf(snapshot, parent).stream()
                .filter(m -> !m.typeId().equals(type.id())).findFirst()
                .ifPresent(m -> out.add("GPU " + parent + " carries " + m.typeName() + " (" + m.uuid() + ") instead of " + type.displayName())));
        Map<PciAddress, VgpuType> vf = vfAssignments(snapshot, desired);
        vfsByPhysfn(snapshot).forEach((physfn, vfs) -> {
            VgpuType type = vf.get(physfn);
            if (type == null) return;
            vfs.stream().filter(v -> v.currentTypeId() != 0 && v.currentTypeId() != type.id()).findFirst()
                    .ifPresent(v -> out.add("GPU " + physfn + " carries " + v.typeName().orElse("type " + v.currentTypeId())
                            + " (VF " + v.address() + ") instead of " + type.name()));
        });
        return out;
    }

    static boolean matches(String desired, String typeName, String typeId) {
        return desired.equals(PermittedSelectors.mdevSelectorForm(typeName)) || desired.equals(typeId);
    }

    // ---- classic mdev

    private void planMdevs(HostSnapshot snapshot, List<String> desired, OwnedDevices owned, Allocated allocated, List<PlannedWrite> writes) {
        Map<PciAddress, MdevType> assigned = mdevAssignments(snapshot, desired);
        for (MdevParent parent : snapshot.mdevParents().values()) {
            MdevType type = assigned.get(parent.address());
            List<MdevInstance> instances = instancesOf(snapshot, parent.address());
            boolean blocked = false;
            for (MdevInstance m : instances) {
                if (type != null && m.typeId().equals(type.id())) continue;
                if (owned.mdevs().contains(m.uuid()) && !allocated.mayBeInUse(m.uuid())) {
                    writes.add(new PlannedWrite.RemoveMdev(parent.address(), m.uuid(), m.typeName()));
                }
                blocked = true;
            }
            if (type == null || blocked) continue;
            for (int i = 0; i < type.availableInstances(); i++) {
                writes.add(new PlannedWrite.CreateMdev(parent.address(), type.id(), type.displayName(), uuids.get()));
            }
        }
    }

    private static Map<PciAddress, MdevType> mdevAssignments(HostSnapshot snapshot, List<String> desired) {
        Map<PciAddress, MdevType> out = new LinkedHashMap<>();
        int n = 0;
        for (MdevParent parent : snapshot.mdevParents().values()) {
            if (parent.types().stream().noneMatch(t -> desired.stream().anyMatch(d -> matches(d, t.displayName(), t.id())))) continue;
            Optional<MdevType> kept = keptMdevType(snapshot, parent, desired);
            int start = n++;
            MdevType chosen = kept.orElseGet(() -> rotated(desired, start).stream()
                    .flatMap(d -> parent.types().stream().filter(t -> matches(d, t.displayName(), t.id())))
                    .findFirst().orElseThrow());
            out.put(parent.address(), chosen);
        }
        return out;
    }

    private static Optional<MdevType> keptMdevType(HostSnapshot snapshot, MdevParent parent, List<String> desired) {
        List<MdevInstance> instances = instancesOf(snapshot, parent.address());
        for (String d : desired) {
            for (MdevType t : parent.types()) {
                if (matches(d, t.displayName(), t.id()) && instances.stream().anyMatch(m -> m.typeId().equals(t.id()))) {
                    return Optional.of(t);
                }
            }
        }
        return Optional.empty();
    }

    private static List<MdevInstance> instancesOf(HostSnapshot snapshot, PciAddress parent) {
        return snapshot.mdevs().values().stream().filter(m -> m.parent().equals(parent)).toList();
    }

    // ---- SR-IOV vGPU

    private static void planVgpuVfs(HostSnapshot snapshot, List<String> desired, OwnedDevices owned, Allocated allocated,
                                    List<PlannedWrite> writes) {
        Map<PciAddress, VgpuType> assigned = vfAssignments(snapshot, desired);
        for (Map.Entry<PciAddress, List<VgpuVf>> gpu : vfsByPhysfn(snapshot).entrySet()) {
            VgpuType type = assigned.get(gpu.getKey());
            boolean blocked = false;
            for (VgpuVf vf : gpu.getValue()) {
                if (vf.currentTypeId() == 0 || (type != null && vf.currentTypeId() == type.id())) continue;
                String id = vf.address().toString();
                // A type no creatable list names any more cannot be judged unwanted: leave it.
                if (vf.typeName().isPresent() && owned.vfs().contains(vf.address()) && !allocated.mayBeInUse(id)) {
                    writes.add(new PlannedWrite.ClearVgpuType(vf.address(), vf.physfn(), vf.currentTypeId(),
                            vf.typeName().orElse(Integer.toString(vf.currentTypeId()))));
                }
                blocked = true;
            }
            if (type == null || blocked) continue;
            gpu.getValue().stream()
                    .filter(vf -> vf.currentTypeId() == 0 && vf.creatable().stream().anyMatch(t -> t.id() == type.id()))
                    .findFirst()
                    .ifPresent(vf -> writes.add(new PlannedWrite.SetVgpuType(vf.address(), vf.physfn(), type.id(), type.name())));
        }
    }

    private static Map<PciAddress, VgpuType> vfAssignments(HostSnapshot snapshot, List<String> desired) {
        Map<PciAddress, VgpuType> out = new LinkedHashMap<>();
        int n = 0;
        for (Map.Entry<PciAddress, List<VgpuVf>> gpu : vfsByPhysfn(snapshot).entrySet()) {
            Map<Integer, VgpuType> known = new LinkedHashMap<>();
            for (VgpuVf vf : gpu.getValue()) {
                for (VgpuType t : vf.creatable()) known.putIfAbsent(t.id(), t);
                if (vf.currentTypeId() != 0 && vf.typeName().isPresent()) {
                    known.putIfAbsent(vf.currentTypeId(), new VgpuType(vf.currentTypeId(), vf.typeName().get()));
                }
            }
            if (known.values().stream().noneMatch(t -> desired.stream().anyMatch(d -> matches(d, t.name(), Integer.toString(t.id()))))) continue;
            int start = n++;
            Optional<VgpuType> kept = desired.stream()
                    .flatMap(d -> gpu.getValue().stream()
                            .filter(vf -> vf.currentTypeId() != 0 && matches(d, vf.typeName().orElse(""), Integer.toString(vf.currentTypeId())))
                            .map(vf -> known.get(vf.currentTypeId())))
                    .filter(t -> t != null)
                    .findFirst();
            VgpuType chosen = kept.orElseGet(() -> rotated(desired, start).stream()
                    .flatMap(d -> known.values().stream().filter(t -> matches(d, t.name(), Integer.toString(t.id()))))
                    .findFirst().orElseThrow());
            out.put(gpu.getKey(), chosen);
        }
        return out;
    }

    private static SortedMap<PciAddress, List<VgpuVf>> vfsByPhysfn(HostSnapshot snapshot) {
        SortedMap<PciAddress, List<VgpuVf>> out = new TreeMap<>();
        for (VgpuVf vf : snapshot.vgpuVfs().values()) out.computeIfAbsent(vf.physfn(), p -> new ArrayList<>()).add(vf);
        return out;
    }

    private static List<String> rotated(List<String> list, int start) {
        List<String> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) out.add(list.get((start + i) % list.size()));
        return out;
    }
}
