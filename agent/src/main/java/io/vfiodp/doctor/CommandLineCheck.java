package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.List;
import java.util.Optional;

/**
 * {@code iommu.cmdline}: what the kernel command line says about the IOMMU. Intel's VT-d stays
 * off unless the kernel was built to turn it on or {@code intel_iommu=on} asks; AMD-Vi is on
 * whenever the firmware describes it ({@code amd_iommu=on} is no option the kernel knows).
 * {@code iommu=pt} is optional: it spares host-owned devices the translation, not VMs.
 */
final class CommandLineCheck implements Check {

    static final String ID = "iommu.cmdline";

    @Override
    public List<Finding> run(NodeView node) {
        return List.of(Finding.of(ID, outcome(node.kernel())));
    }

    private static Outcome outcome(KernelFacts kernel) {
        if (!(kernel.commandLine() instanceof Reading.Found<String>(String text))) {
            return new Outcome.Warn("cannot read the kernel command line: " + describe(kernel.commandLine()),
                    Fix.advice("run doctor where --proc-root is the host's /proc"));
        }
        KernelArgs args = KernelArgs.parse(text);
        String shown = args.relevant().isEmpty() ? "no IOMMU options (the kernel's defaults apply)" : String.join(" ", args.relevant());
        Optional<String> off = args.iommuOff();
        if (off.isPresent()) {
            return new Outcome.Fail(shown + ": " + off.get() + " turns the IOMMU off",
                    Fix.forGood("remove " + off.get() + " from the kernel command line and reboot", Commands.removeKernelArg(off.get())));
        }
        boolean iommuOn = kernel.iommuGroups().known().orElse(0) > 0;
        if (!iommuOn && IommuVendor.of(kernel) == IommuVendor.INTEL && !args.hasValue("intel_iommu", "on")) {
            return new Outcome.Fail(shown + ": no intel_iommu=on, and this kernel leaves VT-d off without it",
                    Fix.forGood("add intel_iommu=on iommu=pt to the kernel command line and reboot", Commands.addKernelArgs("intel_iommu=on iommu=pt")));
        }
        boolean passthrough = args.hasValue("iommu", "pt") || args.hasValue("iommu.passthrough", "1");
        return new Outcome.Ok(shown + (iommuOn && !passthrough ? " (iommu=pt is optional: without it the host's own devices' DMA is translated too)" : ""));
    }

    static String describe(Reading<?> reading) {
        return switch (reading) {
            case Reading.Unreadable<?> u -> u.describe();
            case Reading.Absent<?> a -> a.file() + " does not exist";
            case Reading.Found<?> f -> "read";
        };
    }
}
