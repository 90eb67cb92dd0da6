package io.vfiodp.host.scan;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.ScanProblem;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The VFIO nodes in the tree that plays {@code /dev}: {@code vfio/vfio}, {@code vfio/<group>},
 * {@code iommu} and {@code vfio/devices/vfioN}. A node counts when it is a character device or
 * a regular file (test trees use empty files). Problems name paths relative to the /dev root,
 * prefixed {@code dev:} to tell them from sysfs paths.
 */
final class DevNodesReader {

    private final ConfinedTree dev;

    DevNodesReader(ConfinedTree dev) {
        this.dev = dev;
    }

    DevNodes read(List<ScanProblem> problems) {
        boolean iommu = dev.isDeviceNode(dev.root(), "iommu");
        Optional<String> vfio = directory(dev.root(), "vfio", problems);
        if (vfio.isEmpty()) return DevNodes.of(false, Set.of(), iommu, Set.of());

        boolean container = false;
        TreeSet<Integer> groups = new TreeSet<>();
        List<String> names = List.of(list(vfio.get(), problems));
        for (String name : names) {
            if (name.equals("vfio")) container = dev.isDeviceNode(vfio.get(), name);
            else if (PciFunctionReader.isDigits(name, 0) && name.length() <= 7 && dev.isDeviceNode(vfio.get(), name)) {
                groups.add(Integer.parseInt(name));
            }
        }
        TreeSet<String> cdevs = new TreeSet<>();
        if (names.contains("devices")) {
            Optional<String> devices = directory(vfio.get(), "devices", problems);
            if (devices.isPresent()) {
                for (String name : list(devices.get(), problems)) {
                    if (name.startsWith("vfio") && PciFunctionReader.isDigits(name, 4) && dev.isDeviceNode(devices.get(), name)) {
                        cdevs.add(name);
                    }
                }
            }
        }
        return DevNodes.of(container, groups, iommu, cdevs);
    }

    private Optional<String> directory(String parent, String name, List<ScanProblem> problems) {
        String shownAs = dev.shown(ConfinedTree.child(parent, name));
        try {
            if (dev.optionalEntry(parent, name, shownAs).isEmpty()) return Optional.empty();
            return Optional.of(dev.directory(parent, name, shownAs));
        } catch (EntryUnreadable e) {
            problems.add(devProblem(e));
            return Optional.empty();
        }
    }

    private String[] list(String dir, List<ScanProblem> problems) {
        try {
            return dev.list(dir);
        } catch (EntryUnreadable e) {
            problems.add(devProblem(e));
            return new String[0];
        }
    }

    static ScanProblem devProblem(EntryUnreadable e) {
        return new ScanProblem("dev:" + e.path(), e.reason());
    }
}
