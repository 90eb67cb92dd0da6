package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What this kernel can do for VFIO beyond what runs now: whether it can load modules, and how it
 * provides each piece of VFIO (built in, a module, absent). Its build configuration says so where
 * it is exposed ({@code /proc/config.gz}, {@code /boot/config-<release>}); elsewhere
 * {@code /sys/module} and {@code /proc} say what they can, and the rest stays unknown. So doctor
 * never asks to {@code modprobe} what is built in or what a kernel without modules cannot load.
 *
 * @param loading    whether modules can be loaded
 * @param loadingWhy what says so, naming the file or word
 * @param config     the build configuration, where it was read
 */
record KernelSupport(Loading loading, String loadingWhy, Optional<KernelFacts.KernelConfig> config, KernelFacts kernel) {

    static final String CONFIG_MODULES = "CONFIG_MODULES";
    static final String CONFIG_IOMMUFD_VFIO_CONTAINER = "CONFIG_IOMMUFD_VFIO_CONTAINER";
    /** Each module's build option. */
    static final Map<String, String> OPTION = Map.of(VfioModulesCheck.VFIO, "CONFIG_VFIO", VfioModulesCheck.VFIO_PCI, "CONFIG_VFIO_PCI",
            VfioModulesCheck.TYPE1, "CONFIG_VFIO_IOMMU_TYPE1", VfioModulesCheck.IOMMUFD, "CONFIG_IOMMUFD");
    /** The build options doctor asks the kernel's configuration for. */
    static final Set<String> CONFIG_OPTIONS = Set.of(CONFIG_MODULES, CONFIG_IOMMUFD_VFIO_CONTAINER, "CONFIG_VFIO", "CONFIG_VFIO_PCI",
            "CONFIG_VFIO_IOMMU_TYPE1", "CONFIG_IOMMUFD");

    /** Whether this kernel can load modules now. */
    enum Loading {
        POSSIBLE,
        /** Switched off until the next boot: {@code nomodule}, or the {@code kernel.modules_disabled} sysctl. */
        OFF,
        /** Built without module support. */
        UNSUPPORTED,
        UNKNOWN
    }

    /** How the kernel provides a piece of VFIO that nothing running shows. */
    enum Provision {
        BUILT_IN("built in"), MODULE("a module"), ABSENT("absent"), UNKNOWN("not known");

        private final String word;

        Provision(String word) {
            this.word = word;
        }

        String word() {
            return word;
        }
    }

    /** How the commands that move a device to vfio-pci get the driver. */
    enum VfioPciRoute {
        /** vfio-pci is registered: bind at once. */
        REGISTERED,
        /** Load it first ({@code modprobe vfio-pci}), then bind. */
        LOAD_FIRST,
        /** It can be loaded only after a reboot with module loading on. */
        AFTER_REBOOT,
        /** This kernel has no vfio-pci. */
        NONE
    }

    KernelSupport {
        Objects.requireNonNull(loading, "loading");
        Objects.requireNonNull(loadingWhy, "loadingWhy");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(kernel, "kernel");
    }

    static KernelSupport of(KernelFacts kernel) {
        KernelFacts.Build build = kernel.build();
        Optional<KernelFacts.KernelConfig> config = build.config().known();
        List<String> unsupported = new ArrayList<>();
        config.filter(c -> c.value(CONFIG_MODULES).isEmpty()).ifPresent(c -> unsupported.add(CONFIG_MODULES + " is not set in " + c.file()));
        if (build.moduleList() instanceof Reading.Absent<Boolean> a) unsupported.add("no " + a.file());
        List<String> off = new ArrayList<>();
        kernel.commandLine().known().flatMap(c -> KernelArgs.parse(c).modulesOff()).ifPresent(w -> off.add(w + " on the kernel command line"));
        if (build.modulesDisabled().known().filter("1"::equals).isPresent()) off.add("kernel.modules_disabled is 1");
        if (!unsupported.isEmpty()) {
            unsupported.addAll(off);
            return new KernelSupport(Loading.UNSUPPORTED, "no module support (" + String.join("; ", unsupported) + ")", config, kernel);
        }
        if (!off.isEmpty()) {
            return new KernelSupport(Loading.OFF, "module loading is off until the next boot (" + String.join("; ", off) + ")", config, kernel);
        }
        if (build.moduleList().known().orElse(false)) return new KernelSupport(Loading.POSSIBLE, "modules can be loaded", config, kernel);
        return new KernelSupport(Loading.UNKNOWN, "whether modules can be loaded is not known ("
                + CommandLineCheck.describe(build.moduleList()) + ")", config, kernel);
    }

    /**
     * How the kernel provides {@code module}, for a piece that nothing running shows: from the
     * configuration; else built in or a module as {@code /sys/module} shows it; else absent when the
     * kernel cannot load modules (built-in pieces start at boot), and unknown otherwise.
     */
    Provision provision(String module) {
        if (config.isPresent()) {
            return switch (config.get().value(OPTION.get(module)).orElse("")) {
                case "y" -> Provision.BUILT_IN;
                case "m" -> Provision.MODULE;
                default -> Provision.ABSENT;
            };
        }
        if (kernel.module(module) instanceof Reading.Found<KernelFacts.KernelModule>(KernelFacts.KernelModule m)) {
            return m.builtIn() ? Provision.BUILT_IN : Provision.MODULE;
        }
        return loading == Loading.UNSUPPORTED ? Provision.ABSENT : Provision.UNKNOWN;
    }

    /** Whether {@code module} is built in: {@code /sys/module} shows it so, or the configuration says {@code y}. */
    boolean builtIn(String module) {
        if (kernel.module(module) instanceof Reading.Found<KernelFacts.KernelModule>(KernelFacts.KernelModule m) && m.builtIn()) return true;
        return config.flatMap(c -> c.value(OPTION.get(module))).filter("y"::equals).isPresent();
    }

    /**
     * Whether iommufd stands in for VFIO's own container ({@code CONFIG_IOMMUFD_VFIO_CONTAINER}): then
     * {@code /dev/vfio/vfio} and its type1 interface are iommufd's, and there is no vfio_iommu_type1.
     */
    boolean iommufdContainer() {
        return config.flatMap(c -> c.value(CONFIG_IOMMUFD_VFIO_CONTAINER)).filter("y"::equals).isPresent();
    }

    /** How the commands get vfio-pci, given whether it is registered now. */
    VfioPciRoute vfioPciRoute(boolean registered) {
        if (registered || builtIn(VfioModulesCheck.VFIO_PCI)) return VfioPciRoute.REGISTERED;
        if (provision(VfioModulesCheck.VFIO_PCI) == Provision.ABSENT) return VfioPciRoute.NONE;
        return loading == Loading.OFF ? VfioPciRoute.AFTER_REBOOT : VfioPciRoute.LOAD_FIRST;
    }

    /** Where the configuration came from, or why it is not known: {@code /proc/config.gz}, {@code not exposed (no ...)}. */
    String configWhere() {
        return switch (kernel.build().config()) {
            case Reading.Found<KernelFacts.KernelConfig>(KernelFacts.KernelConfig c) -> c.file();
            case Reading.Absent<KernelFacts.KernelConfig> a -> "not exposed (no " + a.file().replace(" and ", " and no ") + ")";
            case Reading.Unreadable<KernelFacts.KernelConfig> u -> "unreadable (" + u.describe() + ")";
        };
    }
}
