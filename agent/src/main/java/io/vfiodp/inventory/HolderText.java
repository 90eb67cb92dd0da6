package io.vfiodp.inventory;

import io.vfiodp.holders.Holder;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.Holding;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds each device, for the table: the HOLDER column (the pods, with their VMs, short) and a
 * detail line per holder (container, resource or claim, VMI and VM); a device whose holders
 * cannot be told says {@code unknown}, never {@code free}, and the {@code holders:} line above the
 * table says why (one reason for all: one PodResources reading).
 */
final class HolderText {

    private HolderText() {}

    /** The line above the table: where holders come from, or why they cannot be told. */
    static String sourceLine(HolderView view) {
        String pods = view.unknownHolders().map(why -> "unknown (" + why + ")").orElse("the kubelet's PodResources");
        return "holders: " + pods + view.unknownVmis().map(why -> "; VMIs unknown (" + why + ")").orElse("; VMIs from the Kubernetes API");
    }

    /** {@code cells} with {@code holder} put before the last cell (the decision). */
    static String[] withHolderColumn(String[] cells, String holder) {
        String[] out = new String[cells.length + 1];
        System.arraycopy(cells, 0, out, 0, cells.length - 1);
        out[cells.length - 1] = holder;
        out[cells.length] = cells[cells.length - 1];
        return out;
    }

    static String cell(HolderView view, String id, boolean offered) {
        Optional<Holding> holding = view.holding(id);
        if (!offered || holding.isEmpty()) return "-";
        return switch (holding.get()) {
            case Holding.Free f -> "free";
            case Holding.Unknown u -> "unknown";
            case Holding.Held held -> {
                Set<String> pods = new LinkedHashSet<>();
                for (Holder h : held.holders()) pods.add(h.podName() + h.vmi().map(v -> " (VM " + v.vm().orElse(v.name()) + ")").orElse(""));
                yield String.join(", ", pods);
            }
        };
    }

    static List<String> details(HolderView view, String id, boolean offered) {
        List<String> out = new ArrayList<>();
        if (!offered) return out;
        switch (view.holding(id).orElse(Holding.FREE)) {
            case Holding.Free f -> { }
            // the same for every device: said once, on the holders: line
            case Holding.Unknown u -> { }
            case Holding.Held held -> {
                for (Holder h : held.holders()) out.add("held by " + describe(h));
            }
        }
        return out;
    }

    /** {@code pod vms/virt-launcher-vm1-x7k2p, container compute, through nvidia.com/X; VMI vm1 of VM vm1}. */
    static String describe(Holder h) {
        String via = switch (h.via()) {
            case Holder.Via.Plugin p -> "through " + p.resource();
            case Holder.Via.Claim c -> "through claim " + c;
        };
        String vmi = h.vmi().map(v -> "; VMI " + v.name() + v.vm().map(vm -> " of VM " + vm).orElse("")).orElse("");
        return "pod " + h.podName() + ", container " + h.container() + ", " + via + vmi;
    }
}
