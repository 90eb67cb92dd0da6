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
import java.util.concurrent.atomic.AtomicReference;

/** Reads {@link KernelFacts}: a few directory listings and small files, and two {@code /proc} files line by line. */
public final class KernelFactsReader {

    /**
     * {@code /proc/interrupts} holds a column per CPU and a line per interrupt: megabytes on the
     * largest machines. Remapping shows on its first lines (the IO-APIC's), so reading stops there;
     * a file larger than this is not one we understand.
     */
    static final long MAX_PROC_CHARS = 64L << 20;

    private final FactRoot sys;
    private final FactRoot proc;

    private KernelFactsReader(Path sysRoot, Path procRoot) {
        this.sys = FactRoot.open(sysRoot);
        this.proc = FactRoot.open(procRoot);
    }

    /**
     * Reads the facts from {@code sysRoot} and {@code procRoot}, never following a link out of
     * either; {@code moduleParameters} names the modules to look for and, for each, the
     * parameters to read ({@code vfio_iommu_type1} → {@code allow_unsafe_interrupts}).
     */
    public static KernelFacts read(Path sysRoot, Path procRoot, Map<String, List<String>> moduleParameters) {
        return new KernelFactsReader(sysRoot, procRoot).read(moduleParameters);
    }

    private KernelFacts read(Map<String, List<String>> moduleParameters) {
        SortedMap<String, Reading<KernelFacts.KernelModule>> modules = new TreeMap<>();
        moduleParameters.forEach((name, parameters) -> modules.put(name, module(name, parameters)));
        return new KernelFacts(iommuUnits(), sys.list("kernel/iommu_groups").map(names -> names.length),
                sys.list("firmware/acpi/tables").map(names -> sorted(new TreeSet<>(Arrays.asList(names)))),
                modules, sys.list("bus/pci/drivers").map(names -> sorted(new TreeSet<>(Arrays.asList(names)))),
                sys.list("devices/system/node").map(KernelFactsReader::numaNodes),
                proc.attribute("cmdline"), interrupts(), cpuVendor());
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
        return entries.map(ignored -> {
            SortedMap<String, Reading<String>> values = new TreeMap<>();
            for (String p : parameters) values.put(p, sys.attribute(dir + "/parameters/" + p));
            return new KernelFacts.KernelModule(name, values);
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

    private Reading<String> cpuVendor() {
        AtomicReference<String> vendor = new AtomicReference<>();
        Reading<Boolean> read = proc.lines("cpuinfo", MAX_PROC_CHARS, line -> {
            if (!line.startsWith("vendor_id")) return true;
            int colon = line.indexOf(':');
            if (colon > 0) vendor.set(line.substring(colon + 1).strip());
            return false;
        });
        if (!(read instanceof Reading.Found<Boolean>)) return read.map(b -> "");
        return vendor.get() == null || vendor.get().isEmpty() ? new Reading.Absent<>(proc.shown("cpuinfo") + " vendor_id")
                : new Reading.Found<>(vendor.get());
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
