package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code vfio.modules}: the VFIO core ({@code vfio}), its PCI driver ({@code vfio_pci}) and the
 * type1 IOMMU backend ({@code vfio_iommu_type1}). {@code /sys/module/<name>} shows a loaded module
 * and a built-in one with parameters; the vfio-pci driver's entry under {@code bus/pci/drivers}
 * and an answering {@code /dev/vfio/vfio} show the same from the other side. For what is missing,
 * the kernel's build ({@link KernelSupport}) decides the fix: load a module, switch module loading
 * back on, or boot a kernel that has VFIO; never {@code modprobe} what is built in or what a
 * kernel without modules cannot load.
 */
final class VfioModulesCheck implements Check {

    static final String ID = "vfio.modules";
    static final String VFIO = "vfio";
    static final String VFIO_PCI = "vfio_pci";
    static final String TYPE1 = "vfio_iommu_type1";
    static final String IOMMUFD = "iommufd";
    static final String ALLOW_UNSAFE = "allow_unsafe_interrupts";

    /** The modules doctor asks {@link KernelFacts#read} for, with the parameters it reads. */
    static final Map<String, List<String>> MODULES = Map.of(VFIO, List.of(), VFIO_PCI, List.of(), TYPE1, List.of(ALLOW_UNSAFE),
            IOMMUFD, List.of(ALLOW_UNSAFE));

    private static final String NEEDED = "CONFIG_VFIO, CONFIG_VFIO_PCI and CONFIG_VFIO_IOMMU_TYPE1";
    private static final Fix BOOT_WITH_VFIO = Fix.advice("boot a kernel built with " + NEEDED + " (=y, or =m with CONFIG_MODULES=y),"
            + " as distributions' generic kernels are; nothing loaded into this one can add them");

    @Override
    public List<Finding> run(NodeView node) {
        KernelFacts kernel = node.kernel();
        List<String> unreadable = new ArrayList<>();
        for (String m : List.of(VFIO, VFIO_PCI, TYPE1)) {
            if (kernel.module(m) instanceof Reading.Unreadable<?> u) unreadable.add(u.describe());
        }
        if (kernel.pciDrivers() instanceof Reading.Unreadable<?> u) unreadable.add(u.describe());
        if (!unreadable.isEmpty()) {
            return List.of(Finding.of(ID, new Outcome.Warn("cannot tell which VFIO modules are loaded: " + String.join("; ", unreadable),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys"))));
        }
        KernelSupport support = KernelSupport.of(kernel);
        Map<String, String> present = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String piece : pieces(support)) {
            String word = present(node, support, piece);
            if (word.isEmpty()) missing.add(piece);
            else present.put(piece, word);
        }
        if (missing.isEmpty()) return List.of(Finding.of(ID, new Outcome.Ok(ready(present))));
        return List.of(Finding.of(ID, missing(support, missing)));
    }

    /** vfio, vfio_pci and the container's type1 backend: vfio_iommu_type1, or iommufd where it stands in for VFIO's container. */
    private static List<String> pieces(KernelSupport support) {
        boolean iommufdInstead = support.iommufdContainer() && support.provision(TYPE1) == KernelSupport.Provision.ABSENT;
        return List.of(VFIO, VFIO_PCI, iommufdInstead ? IOMMUFD : TYPE1);
    }

    /** How {@code piece} shows as running: {@code loaded}, {@code built in}, {@code present}; empty when nothing shows it. */
    private static String present(NodeView node, KernelSupport support, String piece) {
        if (node.kernel().module(piece) instanceof Reading.Found<KernelFacts.KernelModule>(KernelFacts.KernelModule m)) {
            return m.builtIn() ? "built in" : "loaded";
        }
        boolean shown = switch (piece) {
            case VFIO -> node.host().devNodes().vfioContainer();
            case VFIO_PCI -> node.vfioPciRegistered();
            default -> node.vfio().known().map(v -> v instanceof VfioAvailability.Available a && (a.type1() || a.type1v2())).orElse(false);
        };
        if (!shown) return "";
        return support.builtIn(piece) ? "built in" : "present";
    }

    private static String ready(Map<String, String> present) {
        Map<String, List<String>> byWord = new LinkedHashMap<>();
        present.forEach((piece, word) -> byWord.computeIfAbsent(word, w -> new ArrayList<>()).add(piece));
        List<String> groups = new ArrayList<>();
        byWord.forEach((word, pieces) -> groups.add(join(pieces) + " " + word));
        return String.join(", ", groups) + "; the vfio-pci driver is registered";
    }

    private static Outcome missing(KernelSupport support, List<String> missing) {
        List<String> absent = new ArrayList<>();
        List<String> builtIn = new ArrayList<>();
        List<String> toLoad = new ArrayList<>();
        for (String piece : missing) {
            switch (support.provision(piece)) {
                case ABSENT -> absent.add(piece);
                case BUILT_IN -> builtIn.add(piece);
                case MODULE, UNKNOWN -> toLoad.add(piece);
            }
        }
        if (!absent.isEmpty()) {
            String why = support.config()
                    .map(c -> join(absent.stream().map(KernelSupport.OPTION::get).toList()) + (absent.size() == 1 ? " is" : " are")
                            + " not set in " + c.file())
                    .orElse(join(absent) + (absent.size() == 1 ? " is" : " are") + " not built in (nothing in /sys/module or /dev/vfio shows "
                            + (absent.size() == 1 ? "it" : "them") + ") and this kernel has " + support.loadingWhy());
            return new Outcome.Fail("absent: this kernel cannot pass devices through: " + why, BOOT_WITH_VFIO);
        }
        if (toLoad.isEmpty()) {
            return new Outcome.Fail("not running although built in: " + join(builtIn),
                    Fix.advice("a built-in part that failed to start says why in the kernel log: dmesg | grep -i vfio"));
        }
        String not = "not loaded: " + String.join(", ", toLoad);
        String modules = support.config().map(c -> " (" + (toLoad.size() == 1 ? "a module" : "modules") + " of this kernel: "
                + String.join(", ", toLoad.stream().map(p -> KernelSupport.OPTION.get(p) + "=m").toList()) + " in " + c.file() + ")").orElse("");
        List<String> atBoot = List.of("printf '%s\\n' " + String.join(" ", toLoad) + " > /etc/modules-load.d/vfio.conf");
        if (support.loading() == KernelSupport.Loading.OFF) {
            return new Outcome.Fail(not + modules + ", and " + support.loadingWhy(), loadingBackOn(support, atBoot));
        }
        String unsure = support.config().isPresent() ? ""
                : "; if modprobe finds no such module, this kernel lacks VFIO: boot one built with " + NEEDED;
        return new Outcome.Fail(not + modules, new Fix("load them now, and at every boot" + unsure,
                List.of("modprobe -a " + String.join(" ", toLoad)), atBoot));
    }

    /** Module loading is off until the next boot: switch it back on there, and load the modules then. */
    private static Fix loadingBackOn(KernelSupport support, List<String> atBoot) {
        var nomodule = support.kernel().commandLine().known().flatMap(c -> KernelArgs.parse(c).modulesOff());
        if (nomodule.isPresent()) {
            List<String> forGood = new ArrayList<>(atBoot);
            forGood.addAll(Commands.removeKernelArg(nomodule.get()));
            return Fix.forGood("remove " + nomodule.get() + " from the kernel command line so that modules load, have them loaded at boot,"
                    + " and reboot", forGood);
        }
        List<String> forGood = new ArrayList<>(atBoot);
        forGood.add("grep -rl modules_disabled /etc/sysctl.conf /etc/sysctl.d    # delete the setting from each file listed");
        forGood.add("reboot");
        return Fix.forGood("kernel.modules_disabled keeps module loading off until the next boot: stop setting it, have the modules loaded"
                + " at boot, and reboot", forGood);
    }

    static boolean loaded(KernelFacts kernel, String module) {
        return kernel.module(module) instanceof Reading.Found<?>;
    }

    /** {@code a}, {@code a and b}, {@code a, b and c}. */
    static String join(List<String> names) {
        if (names.size() == 1) return names.getFirst();
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.getLast();
    }
}
