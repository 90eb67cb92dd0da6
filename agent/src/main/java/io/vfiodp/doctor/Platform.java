package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether doctor runs on a virtual machine or on bare metal, and what says so. It matters to the
 * fixes: a virtual machine's firmware has no IOMMU switch, its hypervisor presents a virtual IOMMU
 * or none.
 *
 * <p>The signals, as systemd-detect-virt reads them: the CPU's {@code hypervisor} flag (x86),
 * which every hypervisor sets but VirtualBox; DMI strings that only hypervisors write; and
 * {@code /sys/hypervisor/type} (Xen). Amazon EC2 writes its DMI vendor on VMs and on bare-metal
 * instances alike; only a {@code .metal} product name tells the second.
 *
 * @param kind     what the signals say
 * @param evidence the signals, in words, naming the files
 */
record Platform(Kind kind, String evidence) {

    enum Kind { VIRTUAL, BARE_METAL, UNKNOWN }

    /**
     * How a DMI {@code product_name}, {@code sys_vendor}, {@code board_vendor} or {@code bios_vendor}
     * begins on a hypervisor's machines only (systemd's table, without Oracle: it makes servers too).
     */
    private static final List<String> HYPERVISOR_DMI = List.of("KVM", "QEMU", "VMware", "VMW", "innotek GmbH", "VirtualBox", "Xen", "Bochs",
            "Parallels", "BHYVE", "Amazon EC2");
    /** The DMI fields looked at for {@link #HYPERVISOR_DMI}, in systemd's order (product first: KVM over QEMU). */
    private static final List<String> DMI_SIGNS = List.of("product_name", "sys_vendor", "board_vendor", "bios_vendor");

    Platform {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(evidence, "evidence");
    }

    boolean virtual() {
        return kind == Kind.VIRTUAL;
    }

    static Platform of(KernelFacts.Machine machine, NodeView.Roots roots) {
        String cpuinfo = roots.proc().resolve("cpuinfo").toString();
        List<String> signs = new ArrayList<>();
        machine.hypervisorType().known().filter(t -> !t.isEmpty())
                .ifPresent(t -> signs.add(roots.sys("hypervisor/type") + " says " + t));
        if (machine.hypervisorFlag().known().orElse(false)) signs.add("the CPU's hypervisor flag (" + cpuinfo + ")");
        hypervisorDmi(machine).ifPresent(signs::add);
        Optional<String> identity = identity(machine);
        if (!signs.isEmpty()) {
            return new Platform(Kind.VIRTUAL, String.join("; ", signs) + identity.map(i -> "; DMI: " + i).orElse("; no DMI"));
        }
        if (machine.hypervisorFlag().known().isPresent()) {
            return new Platform(Kind.BARE_METAL, "no hypervisor flag in " + cpuinfo + identity.map(i -> "; DMI: " + i).orElse(""));
        }
        if (identity.isPresent() && amazonMetal(machine)) return new Platform(Kind.BARE_METAL, "DMI: " + identity.get());
        return new Platform(Kind.UNKNOWN, "no CPU flags to read (" + CommandLineCheck.describe(machine.hypervisorFlag()) + "), and "
                + identity.map(i -> "DMI (" + i + ") names no hypervisor").orElse("no DMI"));
    }

    /** The first DMI field that names a hypervisor: {@code DMI sys_vendor 'QEMU'}. */
    private static Optional<String> hypervisorDmi(KernelFacts.Machine machine) {
        if (amazonMetal(machine)) return Optional.empty();
        for (String field : DMI_SIGNS) {
            Optional<String> value = dmi(machine, field);
            if (value.isPresent() && HYPERVISOR_DMI.stream().anyMatch(value.get()::startsWith)) {
                return Optional.of("DMI " + field + " '" + value.get() + "'");
            }
        }
        return Optional.empty();
    }

    private static boolean amazonMetal(KernelFacts.Machine machine) {
        return dmi(machine, "sys_vendor").filter(v -> v.startsWith("Amazon EC2")).isPresent()
                && dmi(machine, "product_name").filter(p -> p.endsWith(".metal")).isPresent();
    }

    /** {@code Supermicro SYS-220U-TNR}: the maker and the product, as DMI names them. */
    private static Optional<String> identity(KernelFacts.Machine machine) {
        List<String> parts = new ArrayList<>();
        dmi(machine, "sys_vendor").ifPresent(parts::add);
        dmi(machine, "product_name").ifPresent(parts::add);
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join(" ", parts));
    }

    private static Optional<String> dmi(KernelFacts.Machine machine, String field) {
        Reading<String> r = machine.dmi().get(field);
        return r == null ? Optional.empty() : r.known().filter(v -> !v.isEmpty());
    }
}
