package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code iommu}: is the IOMMU on. The kernel makes IOMMU groups only while an IOMMU translates
 * DMA; without groups VFIO has nothing to hand out. When it is off, the firmware's ACPI tables
 * (where visible) tell a firmware setting from a kernel one; on a virtual machine
 * ({@link Platform}) there is no firmware setting: its hypervisor presents a virtual IOMMU, or none.
 */
final class IommuCheck implements Check {

    static final String ID = "iommu";

    /** What gives a virtual machine an IOMMU: only its hypervisor, never a setting inside it. */
    static final String VIOMMU = "its hypervisor must present a virtual IOMMU, which no setting inside the virtual machine can add:"
            + " on QEMU/KVM, start it with -machine q35,kernel-irqchip=split and"
            + " -device intel-iommu,intremap=on,caching-mode=on (libvirt: <iommu model='intel'> with intremap and caching_mode on,"
            + " and <ioapic driver='qemu'/>), or with -device virtio-iommu-pci; elsewhere, use a bare-metal or passthrough-capable"
            + " instance";

    @Override
    public List<Finding> run(NodeView node) {
        return List.of(Finding.of(ID, outcome(node.kernel(), Platform.of(node.kernel().machine(), node.roots()))));
    }

    private static Outcome outcome(KernelFacts kernel, Platform platform) {
        if (kernel.iommuGroups() instanceof Reading.Unreadable<Integer> u) {
            return new Outcome.Warn("cannot tell whether the IOMMU is on: " + u.describe(),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys (read-only is enough)"));
        }
        int groups = kernel.iommuGroups().known().orElse(0);
        List<KernelFacts.IommuUnit> units = kernel.iommuUnits().known().orElse(List.of());
        IommuVendor vendor = IommuVendor.of(kernel);
        if (groups > 0) {
            return new Outcome.Ok("on: " + groups + " IOMMU groups" + (units.isEmpty() ? "" : ", " + vendor.hardware() + " units " + names(units)));
        }
        String off = "off: the kernel made no IOMMU groups";
        if (platform.virtual()) {
            if (kernel.acpiTables().known().isEmpty()) {
                return new Outcome.Fail(off + " on a virtual machine (the ACPI tables are not visible here, a container masks /sys/firmware)",
                        Fix.advice(VIOMMU + "; then boot with the IOMMU on (see iommu.cmdline)"));
            }
            if (!IommuVendor.firmwareDescribes(kernel)) {
                return new Outcome.Fail(off + "; this virtual machine's hypervisor presents no IOMMU (no ACPI DMAR, IVRS or VIOT table)",
                        Fix.advice(VIOMMU));
            }
            if (vendor == IommuVendor.VIRTIO) {
                return new Outcome.Fail(off + "; the hypervisor presents a virtio-iommu (" + vendor.table() + ") but the kernel did not turn it on",
                        Fix.advice("boot a kernel with the virtio-iommu driver (CONFIG_VIRTIO_IOMMU) built in, or loaded before the devices"));
            }
        }
        // where doctor cannot tell a virtual machine from bare metal, the fix names both ways
        String orVm = platform.kind() == Platform.Kind.UNKNOWN ? "; on a virtual machine, " + VIOMMU : "";
        if (kernel.acpiTables().known().isEmpty()) {
            return new Outcome.Fail(off + " (the firmware's ACPI tables are not visible here, a container masks /sys/firmware)",
                    Fix.advice("enable " + vendor.hardware() + " in the firmware setup, then boot with the IOMMU on (see iommu.cmdline)" + orVm));
        }
        if (!IommuVendor.firmwareDescribes(kernel)) {
            return new Outcome.Fail(off + "; the firmware describes no IOMMU (no ACPI DMAR or IVRS table)",
                    Fix.advice("enable " + (vendor == IommuVendor.UNKNOWN ? "VT-d (Intel) or AMD-Vi/IOMMU (AMD)" : vendor.hardware())
                            + " in the firmware setup, then reboot" + orVm));
        }
        return new Outcome.Fail(off + "; the firmware describes " + vendor.hardware() + " (" + vendor.table() + ") but the kernel did not turn it on",
                Fix.advice("boot with the IOMMU on: see iommu.cmdline"));
    }

    private static String names(List<KernelFacts.IommuUnit> units) {
        return units.stream().map(KernelFacts.IommuUnit::name).collect(Collectors.joining(", "));
    }
}
