package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The shell commands fixes print. They name the host's own paths ({@code /sys}, {@code /etc}),
 * whatever root doctor read: an operator runs them on the node.
 */
final class Commands {

    /** PCI drivers whose module has another name; a {@code softdep} must name the module. */
    private static final Map<String, String> MODULE_OF_DRIVER = Map.of("xhci_hcd", "xhci_pci", "nvidia-gpu", "i2c_nvidia_gpu");
    /** Drivers that are no module anyone would load before vfio-pci. */
    private static final Set<String> NOT_MODULES = Set.of("pcieport", "pci-stub");

    private Commands() {}

    /**
     * The fix that moves functions to vfio-pci: {@code move} (what the fix says first), the
     * commands that move {@code now} at once and {@code forGood} at every boot, as far as this
     * node's kernel can; where it cannot have vfio-pci now, why, and what it takes.
     */
    static Fix moveToVfioPci(NodeView node, String move, List<PciFunction> now, List<PciFunction> forGood) {
        KernelSupport support = KernelSupport.of(node.kernel());
        KernelSupport.VfioPciRoute route = support.vfioPciRoute(node.vfioPciRegistered());
        List<String> boot = bindForGood(forGood, route, support.builtIn(VfioModulesCheck.VFIO_PCI));
        return switch (route) {
            case NONE -> Fix.advice("this kernel has no vfio-pci, so nothing can be passed through until the node boots one that has it"
                    + " (see vfio.modules)");
            case AFTER_REBOOT -> new Fix("vfio-pci can load only at the next boot with module loading on (see vfio.modules); then " + move,
                    List.of(), boot);
            case REGISTERED, LOAD_FIRST -> new Fix(move, bindNow(now, route), boot);
        };
    }

    /**
     * Moves {@code functions} to vfio-pci now: driver_override, unbind, bind; loads vfio-pci first
     * where it is a module not loaded. Nothing where this kernel cannot have vfio-pci now.
     */
    static List<String> bindNow(List<PciFunction> functions, KernelSupport.VfioPciRoute route) {
        if (route == KernelSupport.VfioPciRoute.NONE || route == KernelSupport.VfioPciRoute.AFTER_REBOOT) return List.of();
        List<String> lines = new ArrayList<>();
        if (route == KernelSupport.VfioPciRoute.LOAD_FIRST) lines.add("modprobe vfio-pci");
        for (PciFunction f : functions) {
            String dir = "/sys/bus/pci/devices/" + f.address();
            lines.add("echo vfio-pci > " + dir + "/driver_override");
            if (f.driver().isPresent()) lines.add("echo " + f.address() + " > " + dir + "/driver/unbind");
            lines.add("echo " + f.address() + " > /sys/bus/pci/drivers/vfio-pci/bind");
        }
        return lines;
    }

    /**
     * Gives {@code functions} to vfio-pci at every boot: vfio-pci claims their ids before their
     * host drivers load. Every function with those ids goes to vfio-pci, not only these. A
     * built-in vfio-pci reads its ids from the kernel command line only ({@code /etc/modprobe.d}
     * is for modules); a kernel without vfio-pci gets nothing.
     */
    static List<String> bindForGood(List<PciFunction> functions, KernelSupport.VfioPciRoute route, boolean builtIn) {
        if (route == KernelSupport.VfioPciRoute.NONE) return List.of();
        TreeSet<String> ids = new TreeSet<>();
        TreeSet<String> modules = new TreeSet<>();
        for (PciFunction f : functions) {
            ids.add(f.vendorDevice());
            f.driver().filter(d -> !NOT_MODULES.contains(d)).ifPresent(d -> modules.add(MODULE_OF_DRIVER.getOrDefault(d, d.replace('-', '_'))));
        }
        String idList = String.join(",", ids);
        if (builtIn) return addKernelArgs("vfio-pci.ids=" + idList);
        List<String> lines = new ArrayList<>();
        lines.add("echo 'options vfio-pci ids=" + idList + "' > /etc/modprobe.d/vfio-pci.conf");
        for (String m : modules) lines.add("echo 'softdep " + m + " pre: vfio-pci' >> /etc/modprobe.d/vfio-pci.conf");
        lines.add("update-initramfs -u    # Debian, Ubuntu; RHEL, Fedora: dracut -f");
        lines.add("# or boot with vfio-pci.ids=" + idList + " on the kernel command line");
        return lines;
    }

    /** Adds {@code args} to the kernel command line of every installed kernel; it takes effect at the next boot. */
    static List<String> addKernelArgs(String args) {
        return List.of("# Debian, Ubuntu: add " + args + " to GRUB_CMDLINE_LINUX in /etc/default/grub, then", "update-grub",
                "# RHEL, Fedora:", "grubby --update-kernel=ALL --args=\"" + args + "\"", "reboot");
    }

    /** Removes {@code word} from the kernel command line of every installed kernel; it takes effect at the next boot. */
    static List<String> removeKernelArg(String word) {
        return List.of("# Debian, Ubuntu: remove " + word + " from GRUB_CMDLINE_LINUX in /etc/default/grub, then", "update-grub",
                "# RHEL, Fedora:", "grubby --update-kernel=ALL --remove-args=\"" + word + "\"", "reboot");
    }
}
