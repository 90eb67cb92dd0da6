package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.about;
import static io.vfiodp.doctor.Nodes.build;
import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.unexposedBuild;
import static io.vfiodp.doctor.Nodes.view;
import static io.vfiodp.doctor.Nodes.withBuild;
import static io.vfiodp.doctor.Nodes.withCommandLine;
import static io.vfiodp.doctor.Nodes.withKernel;
import static io.vfiodp.doctor.Nodes.withModules;
import static io.vfiodp.doctor.Nodes.withVfio;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * How the kernel's build decides the VFIO fixes (host.kernel, vfio.modules, vfio.iommufd, and the
 * commands device.driver and iommu.interrupt-remapping print): a module is loaded with modprobe, a
 * built-in part never is, a kernel that cannot load modules is never asked to, and one without VFIO
 * is told to boot one with it. On doctor-iommu-off (nothing of VFIO running, a GPU on nouveau) and
 * doctor-ready (everything loaded), with their builds swapped for each case.
 */
class KernelBuildChecksTest {

    private static final String CONFIG = "/boot/config-test";
    private static final String ALL_MODULES = "printf '%s\\n' vfio vfio_pci vfio_iommu_type1 > /etc/modules-load.d/vfio.conf";
    private static final String GPU = "0000:01:00.0";

    /** doctor-iommu-off, whose /dev/vfio/vfio does not exist, so its container cannot answer. */
    private static NodeView off() {
        return withVfio(view("doctor-iommu-off"), new Reading.Found<>(new VfioAvailability.Unavailable("/dev/vfio/vfio does not exist")));
    }

    private static NodeView off(KernelFacts.Build build) {
        NodeView v = off();
        return withKernel(v, withBuild(v.kernel(), build));
    }

    private static NodeView off(KernelFacts.Build build, String cmdline) {
        NodeView v = off();
        return withKernel(v, withCommandLine(withBuild(v.kernel(), build), cmdline));
    }

    @Test
    void theKernelLineSaysHowEachPartIsProvidedAndWhetherModulesLoad() {
        assertThat(outcome(new KernelCheck(), off(build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "y", "CONFIG_VFIO_PCI", "m",
                "CONFIG_VFIO_IOMMU_TYPE1", "y", "CONFIG_IOMMUFD", "m")))).isEqualTo(new Outcome.Ok("Linux test; configuration from " + CONFIG
                + ": vfio and vfio_iommu_type1 built in, vfio_pci and iommufd modules; modules can be loaded"));
        assertThat(outcome(new KernelCheck(), off(unexposedBuild(true)))).isEqualTo(new Outcome.Ok(
                "Linux test; its configuration is not exposed (no /proc/config.gz and no /boot/config-test); modules can be loaded"));
    }

    @Test
    void modulesOfThisKernelAreLoadedWithModprobe() {
        assertThat(outcome(new VfioModulesCheck(), off(build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "m", "CONFIG_VFIO_PCI", "m",
                "CONFIG_VFIO_IOMMU_TYPE1", "m")))).isEqualTo(new Outcome.Fail("not loaded: vfio, vfio_pci, vfio_iommu_type1 (modules of this"
                + " kernel: CONFIG_VFIO=m, CONFIG_VFIO_PCI=m, CONFIG_VFIO_IOMMU_TYPE1=m in " + CONFIG + ")",
                new Fix("load them now, and at every boot", List.of("modprobe -a vfio vfio_pci vfio_iommu_type1"), List.of(ALL_MODULES))));
    }

    @Test
    void aBuiltInPartIsNeverModprobed() {
        NodeView v = view("doctor-ready");
        TreeMap<String, Reading<KernelFacts.KernelModule>> modules = new TreeMap<>(v.kernel().modules());
        modules.put(VfioModulesCheck.VFIO, new Reading.Found<>(new KernelFacts.KernelModule("vfio", true, new TreeMap<>())));
        modules.put(VfioModulesCheck.TYPE1, new Reading.Found<>(new KernelFacts.KernelModule("vfio_iommu_type1", true, new TreeMap<>())));
        modules.put(VfioModulesCheck.VFIO_PCI, new Reading.Absent<>("/sys/module/vfio_pci"));
        TreeSet<String> drivers = new TreeSet<>(v.kernel().pciDrivers().known().orElseThrow());
        drivers.remove("vfio-pci");
        NodeView noVfioPci = withKernel(v, withBuild(withModules(v.kernel(), modules, new Reading.Found<>(drivers)),
                build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "y", "CONFIG_VFIO_PCI", "m", "CONFIG_VFIO_IOMMU_TYPE1", "y")));

        assertThat(outcome(new VfioModulesCheck(), noVfioPci)).isEqualTo(new Outcome.Fail("not loaded: vfio_pci (a module of this kernel:"
                + " CONFIG_VFIO_PCI=m in " + CONFIG + ")", new Fix("load them now, and at every boot", List.of("modprobe -a vfio_pci"),
                List.of("printf '%s\\n' vfio_pci > /etc/modules-load.d/vfio.conf"))));
        assertThat(outcome(new VfioModulesCheck(), withKernel(v, withModules(v.kernel(), modules, v.kernel().pciDrivers()))))
                .isEqualTo(new Outcome.Ok("vfio and vfio_iommu_type1 built in, vfio_pci present; the vfio-pci driver is registered"));
    }

    @Test
    void aKernelBuiltWithoutVfioIsToldToBootOneWithIt() {
        Outcome o = outcome(new VfioModulesCheck(), off(build(true, "0", "CONFIG_MODULES", "y")));

        assertThat(o).isEqualTo(new Outcome.Fail("absent: this kernel cannot pass devices through: CONFIG_VFIO, CONFIG_VFIO_PCI and"
                + " CONFIG_VFIO_IOMMU_TYPE1 are not set in " + CONFIG, Fix.advice("boot a kernel built with CONFIG_VFIO, CONFIG_VFIO_PCI and"
                + " CONFIG_VFIO_IOMMU_TYPE1 (=y, or =m with CONFIG_MODULES=y), as distributions' generic kernels are; nothing loaded into"
                + " this one can add them")));
    }

    @Test
    void whereTheConfigurationIsNotExposedAKernelWithoutModulesAndWithoutVfioIsToldSoFromWhatRuns() {
        assertThat(outcome(new VfioModulesCheck(), off(unexposedBuild(false))).detail()).isEqualTo("absent: this kernel cannot pass devices"
                + " through: vfio, vfio_pci and vfio_iommu_type1 are not built in (nothing in /sys/module or /dev/vfio shows them) and this"
                + " kernel has no module support (no /proc/modules)");
    }

    @Test
    void whereTheConfigurationIsNotExposedModprobeIsAskedWithWhatItMeansWhenItFindsNothing() {
        assertThat(outcome(new VfioModulesCheck(), off(unexposedBuild(true)))).isEqualTo(new Outcome.Fail(
                "not loaded: vfio, vfio_pci, vfio_iommu_type1",
                new Fix("load them now, and at every boot; if modprobe finds no such module, this kernel lacks VFIO: boot one built with"
                        + " CONFIG_VFIO, CONFIG_VFIO_PCI and CONFIG_VFIO_IOMMU_TYPE1", List.of("modprobe -a vfio vfio_pci vfio_iommu_type1"),
                        List.of(ALL_MODULES))));
    }

    @Test
    void nomoduleKeepsModulesFromLoadingUntilItIsRemovedAndTheNodeRebooted() {
        NodeView v = off(build(true, "1", "CONFIG_MODULES", "y", "CONFIG_VFIO", "m", "CONFIG_VFIO_PCI", "m", "CONFIG_VFIO_IOMMU_TYPE1", "m"),
                "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro nomodule");
        List<String> forGood = new ArrayList<>(List.of(ALL_MODULES));
        forGood.addAll(Commands.removeKernelArg("nomodule"));

        assertThat(outcome(new VfioModulesCheck(), v)).isEqualTo(new Outcome.Fail("not loaded: vfio, vfio_pci, vfio_iommu_type1 (modules of"
                + " this kernel: CONFIG_VFIO=m, CONFIG_VFIO_PCI=m, CONFIG_VFIO_IOMMU_TYPE1=m in " + CONFIG + "), and module loading is off until"
                + " the next boot (nomodule on the kernel command line; kernel.modules_disabled is 1)",
                Fix.forGood("remove nomodule from the kernel command line so that modules load, have them loaded at boot, and reboot", forGood)));
        // and no modprobe for the GPU either: only what takes effect at that boot
        Fix gpu = ((Outcome.Warn) about(new DriverCheck(), v, GPU)).fix();
        assertThat(gpu.advice()).startsWith("vfio-pci can load only at the next boot with module loading on (see vfio.modules); then move it");
        assertThat(gpu.now()).isEmpty();
        assertThat(gpu.forGood()).startsWith("echo 'options vfio-pci ids=10de:1e87' > /etc/modprobe.d/vfio-pci.conf");
    }

    @Test
    void theModulesDisabledSysctlIsUndoneWhereItIsSet() {
        Fix fix = ((Outcome.Fail) outcome(new VfioModulesCheck(), off(build(true, "1", "CONFIG_MODULES", "y", "CONFIG_VFIO", "m",
                "CONFIG_VFIO_PCI", "m", "CONFIG_VFIO_IOMMU_TYPE1", "m")))).fix();

        assertThat(fix.now()).isEmpty();
        assertThat(fix.forGood()).containsExactly(ALL_MODULES,
                "grep -rl modules_disabled /etc/sysctl.conf /etc/sysctl.d    # delete the setting from each file listed", "reboot");
    }

    @Test
    void whereIommufdStandsInForVfiosContainerItIsTheModuleToLoad() {
        assertThat(outcome(new VfioModulesCheck(), off(build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "m", "CONFIG_VFIO_PCI", "m",
                "CONFIG_IOMMUFD", "m", KernelSupport.CONFIG_IOMMUFD_VFIO_CONTAINER, "y"))).detail())
                .isEqualTo("not loaded: vfio, vfio_pci, iommufd (modules of this kernel: CONFIG_VFIO=m, CONFIG_VFIO_PCI=m, CONFIG_IOMMUFD=m in "
                        + CONFIG + ")");
    }

    @Test
    void aGpuOnAKernelWithoutVfioPciGetsNoCommands() {
        assertThat(about(new DriverCheck(), off(unexposedBuild(false)), GPU)).isEqualTo(new Outcome.Warn("on nouveau: the host uses it",
                Fix.advice("this kernel has no vfio-pci, so nothing can be passed through until the node boots one that has it (see vfio.modules)")));
    }

    @Test
    void aBuiltInVfioPciTakesItsIdsFromTheKernelCommandLine() {
        Fix fix = ((Outcome.Warn) about(new DriverCheck(), off(build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "y", "CONFIG_VFIO_PCI", "y",
                "CONFIG_VFIO_IOMMU_TYPE1", "y")), GPU)).fix();

        assertThat(fix.now()).first().isEqualTo("echo vfio-pci > /sys/bus/pci/devices/0000:01:00.0/driver_override");
        assertThat(fix.forGood()).isEqualTo(Commands.addKernelArgs("vfio-pci.ids=10de:1e87"));
    }

    @Test
    void unsafeInterruptsAreAllowedWhereType1Is() {
        KernelFacts.Build builtIn = build(true, "0", "CONFIG_MODULES", "y", "CONFIG_VFIO", "y", "CONFIG_VFIO_PCI", "y",
                "CONFIG_VFIO_IOMMU_TYPE1", "y");

        assertThat(((Outcome.Fail) outcome(new InterruptRemappingCheck(), off(builtIn))).fix().forGood())
                .isEqualTo(Commands.addKernelArgs("vfio_iommu_type1.allow_unsafe_interrupts=1"));
        assertThat(((Outcome.Fail) outcome(new InterruptRemappingCheck(), off(build(true, "0", "CONFIG_MODULES", "y")))).fix().forGood()).isEmpty();
    }

    @Test
    void iommufdIsNamedAsTheBuildHasIt() {
        assertThat(outcome(new IommufdCheck(), off(build(true, "0", "CONFIG_MODULES", "y", "CONFIG_IOMMUFD", "m")))).isEqualTo(new Outcome.Ok(
                "iommufd is a module of this kernel, not loaded: VMs use the container /dev/vfio/vfio"));
        assertThat(outcome(new IommufdCheck(), off(build(true, "0", "CONFIG_MODULES", "y")))).isEqualTo(new Outcome.Ok(
                "no iommufd: this kernel is built without it (CONFIG_IOMMUFD is not set in " + CONFIG + "): VMs use the container /dev/vfio/vfio"));
    }

    @Test
    void nomoduleWithAValueIsReadAsTheKernelReadsABool() {
        assertThat(KernelArgs.parse("ro nomodule").modulesOff()).hasValue("nomodule");
        assertThat(KernelArgs.parse("ro nomodule=1").modulesOff()).hasValue("nomodule=1");
        assertThat(KernelArgs.parse("ro nomodule=0").modulesOff()).isEmpty();
        assertThat(KernelArgs.parse("ro module.sig_enforce=1").modulesOff()).isEmpty();
    }
}
