package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code iommu.interrupt-remapping}: a device passed through can write any MSI; only interrupt
 * remapping keeps those writes from reaching the host as interrupts. vfio_iommu_type1 refuses to
 * attach a group without it ("No interrupt remapping support") unless
 * {@code allow_unsafe_interrupts} is set. {@code /proc/interrupts} shows whether it is on: the
 * kernel names every remapped interrupt's chip {@code IR-...} (x86) or {@code ITS-...} (arm64).
 */
final class InterruptRemappingCheck implements Check {

    static final String ID = "iommu.interrupt-remapping";
    /** Intel's extended capability register: interrupt remapping support (VT-d spec, ECAP_REG bit 3). */
    private static final long ECAP_IR = 1L << 3;

    @Override
    public List<Finding> run(NodeView node) {
        return List.of(Finding.of(ID, outcome(node.kernel(), Platform.of(node.kernel().machine(), node.roots()))));
    }

    private static Outcome outcome(KernelFacts kernel, Platform platform) {
        if (!(kernel.interrupts() instanceof Reading.Found<KernelFacts.InterruptChips>(KernelFacts.InterruptChips chips))) {
            return new Outcome.Warn("cannot tell: " + CommandLineCheck.describe(kernel.interrupts()),
                    Fix.advice("run doctor where --proc-root is the host's /proc"));
        }
        if (chips.remapped().isPresent()) {
            return new Outcome.Ok("on: interrupts go through " + chips.remapped().get() + " (/proc/interrupts)");
        }
        if (chips.direct().isEmpty()) {
            return new Outcome.Warn("cannot tell: /proc/interrupts names no IO-APIC or MSI interrupt",
                    Fix.advice("run doctor again once a device has taken an interrupt"));
        }
        String off = "off: interrupts go through " + chips.direct().get() + " unremapped (/proc/interrupts)";
        Fix fix = fix(kernel, platform);
        if (UnsafeInterruptsCheck.allowed(kernel)) {
            return new Outcome.Warn(off + "; VFIO still takes devices because allow_unsafe_interrupts is set, so a VM's device can"
                    + " send the host interrupts", fix);
        }
        return new Outcome.Fail(off + "; VFIO refuses to attach a group without it (\"No interrupt remapping support\")", fix);
    }

    private static Fix fix(KernelFacts kernel, Platform platform) {
        Optional<String> switchedOff = kernel.commandLine().known().flatMap(c -> KernelArgs.parse(c).remappingOff());
        if (switchedOff.isPresent()) {
            return Fix.forGood("remove " + switchedOff.get() + " from the kernel command line and reboot", Commands.removeKernelArg(switchedOff.get()));
        }
        List<String> supporting = new ArrayList<>();
        for (KernelFacts.IommuUnit u : kernel.iommuUnits().known().orElse(List.of())) {
            if (u.ecap().known().map(e -> (e & ECAP_IR) != 0).orElse(false)) supporting.add(u.name());
        }
        String hardware = supporting.isEmpty() ? "" : " (" + String.join(", ", supporting) + " support it: ecap bit 3)";
        String turnOn = platform.virtual()
                ? "the hypervisor's virtual IOMMU must remap interrupts, which no setting inside the virtual machine can change: on QEMU/KVM,"
                        + " -device intel-iommu,intremap=on,caching-mode=on with -machine q35,kernel-irqchip=split (see iommu)"
                : "turn interrupt remapping on in the firmware setup (with VT-d or AMD-Vi; some firmware lists it as x2APIC or"
                        + " Interrupt Remapping)";
        return new Fix(turnOn + hardware + "; only where the platform has none, let VFIO go without it, and know that a VM's"
                + " device can then send the host interrupts", List.of(), allowUnsafe(KernelSupport.of(kernel)));
    }

    /** What lets vfio_iommu_type1 go without remapping at every boot: its option where it loads as a module, the command line where built in. */
    private static List<String> allowUnsafe(KernelSupport support) {
        String option = VfioModulesCheck.TYPE1 + "." + VfioModulesCheck.ALLOW_UNSAFE + "=1";
        return switch (support.provision(VfioModulesCheck.TYPE1)) {
            case BUILT_IN -> Commands.addKernelArgs(option);
            case ABSENT -> List.of();
            case MODULE, UNKNOWN -> List.of("echo 'options vfio_iommu_type1 allow_unsafe_interrupts=1' > /etc/modprobe.d/vfio-unsafe-interrupts.conf");
        };
    }
}
