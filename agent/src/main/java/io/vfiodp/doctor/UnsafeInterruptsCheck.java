package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code vfio.unsafe-interrupts}: {@code allow_unsafe_interrupts} of vfio_iommu_type1 (and of
 * iommufd, its own copy) lets VFIO hand out devices whose interrupts the IOMMU cannot isolate:
 * a VM's device may then raise interrupts on the host. Needed only where the platform has no
 * interrupt remapping.
 */
final class UnsafeInterruptsCheck implements Check {

    static final String ID = "vfio.unsafe-interrupts";

    @Override
    public List<Finding> run(NodeView node) {
        KernelFacts kernel = node.kernel();
        List<String> unreadable = new ArrayList<>();
        List<String> set = new ArrayList<>();
        for (String module : List.of(VfioModulesCheck.TYPE1, VfioModulesCheck.IOMMUFD)) {
            Reading<String> value = parameter(kernel, module);
            if (value instanceof Reading.Unreadable<String> u) unreadable.add(u.describe());
            if (value.known().map(UnsafeInterruptsCheck::yes).orElse(false)) set.add(module);
            value.known().filter(v -> !yes(v) && !v.equals("N") && !v.equals("0")).ifPresent(v -> unreadable.add(
                    node.roots().sys("module/" + module + "/parameters/" + VfioModulesCheck.ALLOW_UNSAFE) + ": not Y or N: '" + v + "'"));
        }
        if (!set.isEmpty()) {
            List<String> now = set.stream().map(m -> "echo N > /sys/module/" + m + "/parameters/" + VfioModulesCheck.ALLOW_UNSAFE).toList();
            return List.of(Finding.of(ID, new Outcome.Warn(String.join(", ", set.stream().map(m -> m + "." + VfioModulesCheck.ALLOW_UNSAFE).toList())
                    + " is set: VFIO hands out devices whose interrupts are not isolated, so a VM's device can send the host interrupts",
                    new Fix("turn it off where interrupt remapping is on (see iommu.interrupt-remapping), and drop it from"
                            + " /etc/modprobe.d and the kernel command line", now,
                            List.of("grep -rl allow_unsafe_interrupts /etc/modprobe.d    # delete the option from each file listed",
                                    "update-initramfs -u    # Debian, Ubuntu; RHEL, Fedora: dracut -f")))));
        }
        if (!unreadable.isEmpty()) {
            return List.of(Finding.of(ID, new Outcome.Warn("cannot read " + String.join("; ", unreadable),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys"))));
        }
        if (!VfioModulesCheck.loaded(kernel, VfioModulesCheck.TYPE1)) {
            return List.of(Finding.of(ID, new Outcome.Ok("vfio_iommu_type1 is not loaded (see vfio.modules); nothing allows unsafe interrupts")));
        }
        return List.of(Finding.of(ID, new Outcome.Ok("not allowed: VFIO hands out only devices whose interrupts are isolated")));
    }

    /** Whether either module lets VFIO go without interrupt isolation. */
    static boolean allowed(KernelFacts kernel) {
        return parameter(kernel, VfioModulesCheck.TYPE1).known().map(UnsafeInterruptsCheck::yes).orElse(false)
                || parameter(kernel, VfioModulesCheck.IOMMUFD).known().map(UnsafeInterruptsCheck::yes).orElse(false);
    }

    private static Reading<String> parameter(KernelFacts kernel, String module) {
        Reading<KernelFacts.KernelModule> m = kernel.modules().get(module);
        if (m == null || !(m instanceof Reading.Found<KernelFacts.KernelModule>(KernelFacts.KernelModule found))) {
            return new Reading.Absent<>("module " + module);
        }
        Reading<String> p = found.parameters().get(VfioModulesCheck.ALLOW_UNSAFE);
        return p == null ? new Reading.Absent<>("module " + module + " parameter " + VfioModulesCheck.ALLOW_UNSAFE) : p;
    }

    /** A bool module parameter as sysfs prints it: {@code Y} or {@code N}; {@code 1} where a kernel prints ints. */
    private static boolean yes(String value) {
        return value.equals("Y") || value.equals("1");
    }
}
