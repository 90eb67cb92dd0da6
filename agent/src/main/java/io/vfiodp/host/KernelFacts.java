package io.vfiodp.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * What the running kernel shows of its IOMMU, VFIO and interrupt set-up, read from the trees that
 * play {@code /sys} and {@code /proc}: the facts behind "can this node pass devices through". Each
 * fact is a {@link Reading}, so a missing or garbled file is one fact the caller reports, never
 * an exception. {@code host.scan}'s {@code KernelFactsReader} reads them.
 *
 * @param iommuUnits   {@code class/iommu}: the IOMMU hardware units a driver registered (DMAR, IVHD, SMMU ...)
 * @param iommuGroups  the number of entries of {@code kernel/iommu_groups}
 * @param acpiTables   names under {@code firmware/acpi/tables}: DMAR (Intel VT-d) or IVRS (AMD-Vi)
 *                     there mean the firmware describes an IOMMU; absent where a container masks
 *                     {@code /sys/firmware}
 * @param modules      the modules asked for, by name; absent when {@code module/<name>} does not exist
 * @param pciDrivers   names under {@code bus/pci/drivers}: the PCI drivers registered
 * @param numaNodes    the number of {@code devices/system/node/nodeN} entries
 * @param commandLine  {@code /proc/cmdline}
 * @param interrupts   the interrupt chips {@code /proc/interrupts} names
 * @param cpuVendor    the first {@code vendor_id} of {@code /proc/cpuinfo} ({@code GenuineIntel}, {@code AuthenticAMD})
 * @param machine      what tells a virtual machine from bare metal
 * @param build        how the kernel was built: its release, configuration and module support
 */
public record KernelFacts(
        Reading<List<IommuUnit>> iommuUnits,
        Reading<Integer> iommuGroups,
        Reading<SortedSet<String>> acpiTables,
        SortedMap<String, Reading<KernelModule>> modules,
        Reading<SortedSet<String>> pciDrivers,
        Reading<Integer> numaNodes,
        Reading<String> commandLine,
        Reading<InterruptChips> interrupts,
        Reading<String> cpuVendor,
        Machine machine,
        Build build) {

    public KernelFacts {
        Objects.requireNonNull(iommuUnits, "iommuUnits");
        Objects.requireNonNull(iommuGroups, "iommuGroups");
        Objects.requireNonNull(acpiTables, "acpiTables");
        modules = Collections.unmodifiableSortedMap(new TreeMap<>(modules));
        Objects.requireNonNull(pciDrivers, "pciDrivers");
        Objects.requireNonNull(numaNodes, "numaNodes");
        Objects.requireNonNull(commandLine, "commandLine");
        Objects.requireNonNull(interrupts, "interrupts");
        Objects.requireNonNull(cpuVendor, "cpuVendor");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(build, "build");
    }

    /**
     * Every fact whose file could not be read as the kernel writes it (a dangling link, garbage, a
     * directory where a file belongs), whether or not a check needs it now, in a fixed order.
     */
    public List<Reading.Unreadable<?>> unreadable() {
        List<Reading.Unreadable<?>> out = new ArrayList<>();
        add(out, iommuUnits);
        iommuUnits.known().ifPresent(units -> units.forEach(u -> add(out, u.ecap())));
        add(out, iommuGroups);
        add(out, acpiTables);
        modules.values().forEach(m -> {
            add(out, m);
            m.known().ifPresent(found -> found.parameters().values().forEach(p -> add(out, p)));
        });
        for (Reading<?> r : List.of(pciDrivers, numaNodes, commandLine, interrupts, cpuVendor, machine.hypervisorFlag())) add(out, r);
        machine.dmi().values().forEach(r -> add(out, r));
        for (Reading<?> r : List.of(machine.hypervisorType(), build.release(), build.config(), build.moduleList(), build.modulesDisabled())) {
            add(out, r);
        }
        // one unreadable file may stand behind two facts (/proc/cpuinfo's vendor and flags): named once
        return out.stream().distinct().toList();
    }

    private static void add(List<Reading.Unreadable<?>> out, Reading<?> r) {
        if (r instanceof Reading.Unreadable<?> u) out.add(u);
    }

    /** The module {@code name} as read: absent when it is neither loaded nor built in with parameters. */
    public Reading<KernelModule> module(String name) {
        Reading<KernelModule> m = modules.get(name);
        if (m == null) throw new IllegalArgumentException("module " + name + " was not asked for");
        return m;
    }

    /**
     * One IOMMU unit under {@code class/iommu}.
     *
     * @param name   {@code dmar0}, {@code ivhd0}, ...
     * @param driver the driver's attribute group the unit carries: {@code intel-iommu} or
     *               {@code amd-iommu}; empty for others (an ARM SMMU, virtio-iommu)
     * @param ecap   an Intel unit's extended capability register ({@code intel-iommu/ecap})
     */
    public record IommuUnit(String name, Optional<String> driver, Reading<Long> ecap) {
        public IommuUnit {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(driver, "driver");
            Objects.requireNonNull(ecap, "ecap");
        }
    }

    /**
     * A module as {@code module/<name>} shows it: loaded, or built in with parameters.
     *
     * @param builtIn    built into the kernel: its directory has no {@code initstate}, which only a loaded module's has
     * @param parameters the parameters asked for, by name
     */
    public record KernelModule(String name, boolean builtIn, SortedMap<String, Reading<String>> parameters) {
        public KernelModule {
            Objects.requireNonNull(name, "name");
            parameters = Collections.unmodifiableSortedMap(new TreeMap<>(parameters));
        }
    }

    /**
     * What tells a virtual machine from bare metal.
     *
     * @param hypervisorFlag the {@code hypervisor} flag on the first {@code flags} line of {@code /proc/cpuinfo}: x86 CPUs
     *                       show it under a hypervisor (CPUID leaf 1, ECX bit 31); absent where cpuinfo has no
     *                       {@code flags} line (arm64)
     * @param dmi            the DMI fields asked for ({@code class/dmi/id/sys_vendor}, {@code product_name}, ...), by
     *                       name; each absent where the machine has no DMI (firecracker, many arm64 boards)
     * @param hypervisorType {@code hypervisor/type}, which names the hypervisor a Xen guest runs on
     */
    public record Machine(Reading<Boolean> hypervisorFlag, SortedMap<String, Reading<String>> dmi, Reading<String> hypervisorType) {
        public Machine {
            Objects.requireNonNull(hypervisorFlag, "hypervisorFlag");
            dmi = Collections.unmodifiableSortedMap(new TreeMap<>(dmi));
            Objects.requireNonNull(hypervisorType, "hypervisorType");
        }
    }

    /**
     * How the running kernel was built, and whether it can load modules.
     *
     * @param release         {@code /proc/sys/kernel/osrelease}, what {@code uname -r} prints
     * @param config          the build options asked for, from {@code /proc/config.gz}, else from
     *                        {@code /boot/config-<release>}; absent where neither exists, naming both files
     *                        looked for, joined by {@code " and "}
     * @param moduleList      found (true) where {@code /proc/modules} exists, absent naming it where not: a kernel
     *                        without module support ({@code CONFIG_MODULES} unset) has none
     * @param modulesDisabled {@code /proc/sys/kernel/modules_disabled}: {@code 1} once module loading is switched
     *                        off ({@code nomodule} on the command line, or the sysctl), until the next boot
     */
    public record Build(Reading<String> release, Reading<KernelConfig> config, Reading<Boolean> moduleList, Reading<String> modulesDisabled) {
        public Build {
            Objects.requireNonNull(release, "release");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(moduleList, "moduleList");
            Objects.requireNonNull(modulesDisabled, "modulesDisabled");
        }
    }

    /**
     * The kernel's build configuration, as far as asked.
     *
     * @param file    the file it was read from, as named to an operator
     * @param options the options asked for that are set, with their values ({@code y} built in, {@code m} a
     *                module); an option that is not set ({@code # CONFIG_X is not set}, or not there) is not in it
     */
    public record KernelConfig(String file, SortedMap<String, String> options) {
        public KernelConfig {
            Objects.requireNonNull(file, "file");
            options = Collections.unmodifiableSortedMap(new TreeMap<>(options));
        }

        /** The value of {@code option} ({@code CONFIG_VFIO}), empty when it is not set. */
        public Optional<String> value(String option) {
            return Optional.ofNullable(options.get(option));
        }
    }

    /**
     * What {@code /proc/interrupts} shows of interrupt remapping: on x86 every interrupt goes
     * through a chip named {@code IR-...} once the IOMMU remaps interrupts ({@code IR-IO-APIC},
     * {@code IR-PCI-MSI}); on arm64 MSIs that a GICv3 ITS isolates go through {@code ITS-...}.
     *
     * @param remapped a chip that remaps, the first seen
     * @param direct   an IO-APIC or MSI chip that does not, the first seen
     */
    public record InterruptChips(Optional<String> remapped, Optional<String> direct) {
        public InterruptChips {
            Objects.requireNonNull(remapped, "remapped");
            Objects.requireNonNull(direct, "direct");
        }
    }
}
