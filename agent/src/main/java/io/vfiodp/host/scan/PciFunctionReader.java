package io.vfiodp.host.scan;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads one PCI function from {@code bus/pci/devices/<address>}.
 *
 * <p>Which unreadable attribute skips the function, and which only defaults:
 * <ul>
 *   <li>{@code vendor}, {@code device}, {@code class}: skip. Selectors and the default policy
 *       decide on them; a guessed value could hand out the wrong device.</li>
 *   <li>{@code subsystem_vendor}, {@code subsystem_device}, {@code revision}: default 0 with a
 *       problem. They only describe the device; hiding a GPU for them helps nobody.</li>
 *   <li>{@code numa_node}: missing means the kernel has no NUMA ({@code -1}, no problem);
 *       garbage defaults to {@code -1} with a problem, as NUMA only orders preferences.</li>
 *   <li>{@code boot_vga}: missing means not a VGA device ({@code false}); garbage counts as
 *       {@code true} with a problem, because handing the host's console GPU to a VM takes the
 *       console away, while keeping a GPU back is harmless.</li>
 *   <li>every link ({@code driver}, {@code iommu_group}, {@code physfn}, {@code virtfnN},
 *       {@code vfio-dev}) and {@code sriov_totalvfs}: skip. They decide what may be handed
 *       out and which {@code /dev/vfio} node goes with it; there is no safe default.</li>
 * </ul>
 */
final class PciFunctionReader {

    private static final int MAX_GROUP = 1 << 20;

    private final ConfinedTree sys;
    private final String devicesDir;

    PciFunctionReader(ConfinedTree sys, String devicesDir) {
        this.sys = sys;
        this.devicesDir = devicesDir;
    }

    ScannedFunction read(PciAddress address) {
        String shown = "bus/pci/devices/" + address;
        List<ScanProblem> warnings = new ArrayList<>();
        try {
            String name = address.toString();
            String dir = sys.linkedDirectory(devicesDir, name, shown);
            if (!ConfinedTree.fileName(dir).equals(name)) {
                throw new EntryUnreadable(shown, "link leads to a device named " + ConfinedTree.fileName(dir) + ", not " + address);
            }
            Set<String> names = new HashSet<>(List.of(sys.list(dir)));
            int vendor = SysfsValues.hex(sys.attribute(dir, "vendor", shown + "/vendor"), 0xffff, shown + "/vendor");
            int device = SysfsValues.hex(sys.attribute(dir, "device", shown + "/device"), 0xffff, shown + "/device");
            int classCode = SysfsValues.hex(sys.attribute(dir, "class", shown + "/class"), 0xffffff, shown + "/class");
            int subVendor = hexOrZero(dir, shown, "subsystem_vendor", 0xffff, warnings);
            int subDevice = hexOrZero(dir, shown, "subsystem_device", 0xffff, warnings);
            int revision = hexOrZero(dir, shown, "revision", 0xff, warnings);

            Optional<String> driver = Optional.empty();
            if (names.contains("driver")) {
                driver = Optional.of(ConfinedTree.fileName(linkInto(dir, "driver", "drivers", shown)));
            }
            OptionalInt group = OptionalInt.empty();
            Optional<String> groupDir = Optional.empty();
            if (names.contains("iommu_group")) {
                String target = linkInto(dir, "iommu_group", "iommu_groups", shown);
                group = OptionalInt.of(SysfsValues.decimal(ConfinedTree.fileName(target), 0, MAX_GROUP, shown + "/iommu_group"));
                groupDir = Optional.of(target);
            }
            int numa = names.contains("numa_node") ? numaNode(dir, shown, warnings) : -1;
            boolean bootVga = names.contains("boot_vga") && bootVga(dir, shown, warnings);
            Optional<PciAddress> physfn = names.contains("physfn")
                    ? Optional.of(linkedFunction(dir, "physfn", shown)) : Optional.empty();
            List<PciAddress> virtfns = virtfns(dir, names, shown);
            OptionalInt totalVfs = OptionalInt.empty();
            if (names.contains("sriov_totalvfs")) {
                totalVfs = OptionalInt.of(SysfsValues.decimal(
                        sys.attribute(dir, "sriov_totalvfs", shown + "/sriov_totalvfs"), 0, 65535, shown + "/sriov_totalvfs"));
            }
            Optional<String> cdev = names.contains("vfio-dev") ? vfioCdev(dir, shown) : Optional.empty();

            PciFunction function = new PciFunction(address, vendor, device, subVendor, subDevice, classCode, revision,
                    driver, group, numa, bootVga, physfn, virtfns, totalVfs, cdev, upstreamBridges(dir), pcieRoot(dir));
            return new ScannedFunction.Found(function, dir, shown, groupDir,
                    names.contains("mdev_supported_types"), names.contains("nvidia"), warnings);
        } catch (EntryUnreadable e) {
            return new ScannedFunction.Skipped(e.toProblem());
        }
    }

    /** The directory a link of the function leads to, which must sit in a {@code parentName} directory. */
    private String linkInto(String dir, String link, String parentName, String shown) throws EntryUnreadable {
        String target = sys.linkedDirectory(dir, link, shown + "/" + link);
        if (!ConfinedTree.fileName(ConfinedTree.parent(target)).equals(parentName)) {
            throw new EntryUnreadable(shown + "/" + link,
                    "link leads to " + sys.shown(target) + ", not into a '" + parentName + "' directory");
        }
        return target;
    }

    private int numaNode(String dir, String shown, List<ScanProblem> warnings) {
        try {
            return SysfsValues.decimal(sys.attribute(dir, "numa_node", shown + "/numa_node"), -1, 65535, shown + "/numa_node");
        } catch (EntryUnreadable e) {
            warnings.add(new ScanProblem(e.path(), e.reason() + "; NUMA node taken as -1 (none)"));
            return -1;
        }
    }

    private boolean bootVga(String dir, String shown, List<ScanProblem> warnings) {
        String value;
        try {
            value = sys.attribute(dir, "boot_vga", shown + "/boot_vga");
        } catch (EntryUnreadable e) {
            warnings.add(new ScanProblem(e.path(), e.reason() + "; treated as the boot VGA device"));
            return true;
        }
        return switch (value) {
            case "0" -> false;
            case "1" -> true;
            default -> {
                warnings.add(new ScanProblem(shown + "/boot_vga",
                        "not 0 or 1: " + SysfsValues.quote(value) + "; treated as the boot VGA device"));
                yield true;
            }
        };
    }

    /** {@code virtfnN} links by N, numerically ({@code virtfn10} after {@code virtfn9}). */
    private List<PciAddress> virtfns(String dir, Set<String> names, String shown) throws EntryUnreadable {
        TreeMap<Integer, String> links = new TreeMap<>();
        for (String entry : names) {
            if (entry.startsWith("virtfn") && entry.length() > 6 && entry.length() <= 12 && isDigits(entry, 6)) {
                links.put(Integer.parseInt(entry.substring(6)), entry);
            }
        }
        List<PciAddress> virtfns = new ArrayList<>(links.size());
        for (String link : links.values()) virtfns.add(linkedFunction(dir, link, shown));
        return virtfns;
    }

    private int hexOrZero(String dir, String shown, String name, int max, List<ScanProblem> warnings) {
        String shownAs = shown + "/" + name;
        try {
            return SysfsValues.hex(sys.attribute(dir, name, shownAs), max, shownAs);
        } catch (EntryUnreadable e) {
            warnings.add(new ScanProblem(e.path(), e.reason() + "; taken as 0"));
            return 0;
        }
    }

    private PciAddress linkedFunction(String dir, String link, String shown) throws EntryUnreadable {
        String target = sys.linkedDirectory(dir, link, shown + "/" + link);
        String name = ConfinedTree.fileName(target);
        return PciAddress.tryParse(name).orElseThrow(() -> new EntryUnreadable(shown + "/" + link,
                "link leads to " + sys.shown(target) + ", not a PCI function"));
    }

    private Optional<String> vfioCdev(String dir, String shown) throws EntryUnreadable {
        String vfioDev = sys.directory(dir, "vfio-dev", shown + "/vfio-dev");
        List<String> cdevs = new ArrayList<>();
        for (String name : sys.list(vfioDev)) {
            if (name.startsWith("vfio") && name.length() > 4 && isDigits(name, 4)) cdevs.add(name);
        }
        if (cdevs.size() > 1) {
            throw new EntryUnreadable(shown + "/vfio-dev", "more than one VFIO device: " + String.join(", ", cdevs.stream().sorted().toList()));
        }
        return cdevs.stream().findFirst();
    }

    /**
     * The PCI functions whose directories enclose {@code dir}: sysfs nests every function
     * below the bridge it sits behind ({@code devices/pci0000:00/0000:00:01.0/0000:01:00.0}).
     */
    private List<PciAddress> upstreamBridges(String dir) {
        List<PciAddress> bridges = new ArrayList<>(4);
        int end = dir.lastIndexOf('/');
        while (end > sys.root().length()) {
            int start = dir.lastIndexOf('/', end - 1);
            // a PCI address is 12 characters: anything else ends the chain without parsing
            if (end - start - 1 != 12) break;
            Optional<PciAddress> address = PciAddress.tryParse(dir.substring(start + 1, end));
            if (address.isEmpty()) break;
            bridges.add(address.get());
            end = start;
        }
        return bridges;
    }

    /**
     * The first directory below {@code devices/} that encloses {@code dir}, when it is a PCI root
     * ({@code pci0000:3a}); behind a VMD controller that is still the outer root, as Kubernetes'
     * {@code deviceattribute.GetPCIeRootAttributeByPCIBusID} resolves it.
     */
    private Optional<String> pcieRoot(String dir) {
        String devices = sys.root() + "/devices/";
        if (!dir.startsWith(devices)) return Optional.empty();
        int end = dir.indexOf('/', devices.length());
        String first = dir.substring(devices.length(), end < 0 ? dir.length() : end);
        return first.startsWith("pci") && end > 0 ? Optional.of(first) : Optional.empty();
    }

    static boolean isDigits(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return from < s.length();
    }
}
