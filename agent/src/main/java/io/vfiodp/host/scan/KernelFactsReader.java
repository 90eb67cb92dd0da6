package io.vfiodp.host.scan;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads {@link KernelFacts}: a few directory listings and small files, two {@code /proc} files line
 * by line, and the kernel's configuration ({@code /proc/config.gz}, else {@code /boot/config-<release>}).
 */
public final class KernelFactsReader {

    /** The DMI fields read ({@code class/dmi/id/<field>}): who made the machine, or which hypervisor plays it. */
    public static final List<String> DMI_FIELDS = List.of("sys_vendor", "product_name", "product_version", "board_vendor", "bios_vendor");
    /** A kernel's configuration is a few hundred kB of text; a file larger than this is not one. */
    static final long MAX_CONFIG_CHARS = 16L << 20;

    /**
     * {@code /proc/interrupts} holds a column per CPU and a line per interrupt: megabytes on the
     * largest machines. Remapping shows on its first lines (the IO-APIC's), so reading stops there;
     * a file larger than this is not one we understand.
     */
    static final long MAX_PROC_CHARS = 64L << 20;

    private final FactRoot sys;
    private final FactRoot proc;
    private final Optional<Path> bootRoot;

    private KernelFactsReader(Path sysRoot, Path procRoot, Optional<Path> bootRoot) {
        this.sys = FactRoot.open(sysRoot);
        this.proc = FactRoot.open(procRoot);
        this.bootRoot = bootRoot;
    }

    /**
     * Reads the facts from {@code sysRoot}, {@code procRoot} and {@code bootRoot} (where given: the
     * kernel's configuration is looked for there when {@code /proc} has none), never following a
     * link out of any; {@code moduleParameters} names the modules to look for and, for each, the
     * parameters to read ({@code vfio_iommu_type1} → {@code allow_unsafe_interrupts});
     * {@code configOptions} the build options to look for ({@code CONFIG_VFIO}).
     */
    public static KernelFacts read(Path sysRoot, Path procRoot, Optional<Path> bootRoot, Map<String, List<String>> moduleParameters,
                                   Set<String> configOptions) {
        return new KernelFactsReader(sysRoot, procRoot, bootRoot).read(moduleParameters, configOptions);
    }

    private KernelFacts read(Map<String, List<String>> moduleParameters, Set<String> configOptions) {
        SortedMap<String, Reading<KernelFacts.KernelModule>> modules = new TreeMap<>();
        moduleParameters.forEach((name, parameters) -> modules.put(name, module(name, parameters)));
        Cpu cpu = cpu();
        SortedMap<String, Reading<String>> dmi = new TreeMap<>();
        for (String field : DMI_FIELDS) dmi.put(field, sys.attribute("class/dmi/id/" + field));
        Reading<String> release = proc.attribute("sys/kernel/osrelease");
        return new KernelFacts(iommuUnits(), sys.list("kernel/iommu_groups").map(names -> names.length),
                sys.list("firmware/acpi/tables").map(names -> sorted(new TreeSet<>(Arrays.asList(names)))),
                modules, sys.list("bus/pci/drivers").map(names -> sorted(new TreeSet<>(Arrays.asList(names)))),
                sys.list("devices/system/node").map(KernelFactsReader::numaNodes),
                proc.attribute("cmdline"), interrupts(), cpu.vendor(),
                new KernelFacts.Machine(cpu.hypervisorFlag(), dmi, sys.attribute("hypervisor/type")),
                new KernelFacts.Build(release, config(release, configOptions), moduleList(),
                        proc.attribute("sys/kernel/modules_disabled")));
    }

    /** {@code /proc/modules}: there, or absent naming it. */
    private Reading<Boolean> moduleList() {
        Reading<Boolean> exists = proc.exists("modules");
        return exists.known().filter(e -> !e).isPresent() ? new Reading.Absent<>(proc.shown("modules")) : exists;
    }

    /**
     * The options asked for from {@code /proc/config.gz} (the running kernel's own, with
     * {@code CONFIG_IKCONFIG_PROC}), else from {@code /boot/config-<release>}, which distributions
     * install beside the kernel.
     */
    private Reading<KernelFacts.KernelConfig> config(Reading<String> release, Set<String> options) {
        Reading<KernelFacts.KernelConfig> fromProc = config(proc, "config.gz", true, options);
        if (fromProc instanceof Reading.Found<KernelFacts.KernelConfig>) return fromProc;
        if (bootRoot.isEmpty() || !(release instanceof Reading.Found<String>(String name)) || name.isEmpty() || name.contains("/")) return fromProc;
        FactRoot boot = FactRoot.open(bootRoot.get());
        String file = "config-" + name;
        Reading<KernelFacts.KernelConfig> fromBoot = boot.missing() ? new Reading.Absent<>(boot.shown(file)) : config(boot, file, false, options);
        if (fromBoot instanceof Reading.Found<KernelFacts.KernelConfig>) return fromBoot;
        if (fromProc instanceof Reading.Absent<KernelFacts.KernelConfig> a && fromBoot instanceof Reading.Absent<KernelFacts.KernelConfig> b) {
            return new Reading.Absent<>(a.file() + " and " + b.file());
        }
        return fromProc instanceof Reading.Unreadable<KernelFacts.KernelConfig> ? fromProc : fromBoot;
    }

    private static Reading<KernelFacts.KernelConfig> config(FactRoot root, String file, boolean gzip, Set<String> options) {
        SortedMap<String, String> set = new TreeMap<>();
        LineFile.Lines take = line -> {
            int eq = line.indexOf('=');
            if (line.startsWith("CONFIG_") && eq > 0 && options.contains(line.substring(0, eq))) set.put(line.substring(0, eq), line.substring(eq + 1));
            return true;
        };
        Reading<Boolean> read = gzip ? root.gzipLines(file, MAX_CONFIG_CHARS, take) : root.lines(file, MAX_CONFIG_CHARS, take);
        return read.map(done -> new KernelFacts.KernelConfig(root.shown(file), set));
    }

    private Reading<List<KernelFacts.IommuUnit>> iommuUnits() {
        return sys.list("class/iommu").map(names -> {
            List<KernelFacts.IommuUnit> units = new ArrayList<>();
            for (String name : new TreeSet<>(Arrays.asList(names))) units.add(unit(name));
            return List.copyOf(units);
        });
    }

    private KernelFacts.IommuUnit unit(String name) {
        String dir = "class/iommu/" + name;
        Reading<Boolean> intel = sys.exists(dir + "/intel-iommu");
        if (!(intel instanceof Reading.Found<Boolean>)) return new KernelFacts.IommuUnit(name, Optional.empty(), intel.map(b -> 0L));
        if (intel.known().orElseThrow()) {
            String ecap = dir + "/intel-iommu/ecap";
            return new KernelFacts.IommuUnit(name, Optional.of("intel-iommu"), FactRoot.parsed(sys.attribute(ecap), sys.shown(ecap), KernelFactsReader::hex));
        }
        boolean amd = sys.exists(dir + "/amd-iommu").known().orElse(false);
        return new KernelFacts.IommuUnit(name, amd ? Optional.of("amd-iommu") : Optional.empty(), new Reading.Absent<>(sys.shown(dir + "/intel-iommu/ecap")));
    }

    private Reading<KernelFacts.KernelModule> module(String name, List<String> parameters) {
        String dir = "module/" + name;
        Reading<String[]> entries = sys.list(dir);
        return entries.map(names -> {
            SortedMap<String, Reading<String>> values = new TreeMap<>();
            for (String p : parameters) values.put(p, sys.attribute(dir + "/parameters/" + p));
            return new KernelFacts.KernelModule(name, !Arrays.asList(names).contains("initstate"), values);
        });
    }

    private static int numaNodes(String[] names) {
        int nodes = 0;
        for (String n : names) {
            if (n.length() > 4 && n.startsWith("node") && PciFunctionReader.isDigits(n, 4)) nodes++;
        }
        return nodes;
    }

    private Reading<KernelFacts.InterruptChips> interrupts() {
        AtomicReference<String> remapped = new AtomicReference<>();
        AtomicReference<String> direct = new AtomicReference<>();
        Reading<Boolean> read = proc.lines("interrupts", MAX_PROC_CHARS, line -> {
            String chip = chip(line);
            if (chip == null) return true;
            if (chip.startsWith("IR-") || chip.startsWith("ITS-")) {
                remapped.set(chip);
                return false;
            }
            if (direct.get() == null && (chip.equals("IO-APIC") || chip.contains("MSI"))) direct.set(chip);
            return true;
        });
        return read.map(done -> new KernelFacts.InterruptChips(Optional.ofNullable(remapped.get()), Optional.ofNullable(direct.get())));
    }

    /**
     * The chip column of a numbered {@code /proc/interrupts} line ({@code "  8:   0   0  IR-IO-APIC  8-edge  rtc0"}),
     * without a device suffix ({@code IR-PCI-MSIX-0000:00:04.0} → {@code IR-PCI-MSIX}); null for other lines.
     */
    static String chip(String line) {
        String[] tokens = line.strip().split("\\s+");
        if (tokens.length < 2 || !tokens[0].endsWith(":") || !PciFunctionReader.isDigits(tokens[0].substring(0, tokens[0].length() - 1), 0)
                || tokens[0].length() == 1) {
            return null;
        }
        for (int i = 1; i < tokens.length; i++) {
            if (PciFunctionReader.isDigits(tokens[i], 0)) continue;
            String chip = tokens[i];
            int device = chip.indexOf("-0000:");
            return device > 0 ? chip.substring(0, device) : chip;
        }
        return null;
    }

    /** The first CPU's {@code vendor_id}, and whether its {@code flags} name {@code hypervisor}. */
    private record Cpu(Reading<String> vendor, Reading<Boolean> hypervisorFlag) {}

    /** Reads {@code /proc/cpuinfo}'s first block (the first CPU) only: it grows with the number of CPUs. */
    private Cpu cpu() {
        AtomicReference<String> vendor = new AtomicReference<>();
        AtomicReference<String> flags = new AtomicReference<>();
        AtomicBoolean inBlock = new AtomicBoolean();
        Reading<Boolean> read = proc.lines("cpuinfo", MAX_PROC_CHARS, line -> {
            if (line.isBlank()) return !inBlock.get();
            int colon = line.indexOf(':');
            if (colon < 0) return true;
            inBlock.set(true);
            String key = line.substring(0, colon).strip();
            if (key.equals("vendor_id") && vendor.get() == null) vendor.set(line.substring(colon + 1).strip());
            if (key.equals("flags") && flags.get() == null) flags.set(line.substring(colon + 1).strip());
            return vendor.get() == null || flags.get() == null;
        });
        if (!(read instanceof Reading.Found<Boolean>)) return new Cpu(read.map(b -> ""), read.map(b -> false));
        Reading<String> v = vendor.get() == null || vendor.get().isEmpty() ? new Reading.Absent<>(proc.shown("cpuinfo") + " vendor_id")
                : new Reading.Found<>(vendor.get());
        Reading<Boolean> h = flags.get() == null ? new Reading.Absent<>(proc.shown("cpuinfo") + " flags")
                : new Reading.Found<>(Arrays.asList(flags.get().split("\\s+")).contains("hypervisor"));
        return new Cpu(v, h);
    }

    private static SortedSet<String> sorted(Set<String> names) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(names));
    }

    private static long hex(String value) {
        String digits = value.startsWith("0x") ? value.substring(2) : value;
        try {
            return Long.parseUnsignedLong(digits, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a hexadecimal register value: '" + value + "'");
        }
    }
}
