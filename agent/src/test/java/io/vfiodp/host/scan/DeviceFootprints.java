package io.vfiodp.host.scan;

import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What a device's scan result depends on in an intact node, so that a corruption elsewhere
 * provably leaves it alone. Paths are relative to the node ({@code sys/...}, {@code dev/...}).
 *
 * @param resolved every entry looked at while resolving the device's links and its
 *                 {@code /dev/vfio} node, the links themselves and every directory on the way
 * @param trees    directories whose whole content counts: the device's own directory, its IOMMU
 *                 group's, an mdev's type directory
 * @param others   directories inside {@code trees} that belong to other devices (functions
 *                 behind a bridge, mdevs of a GPU)
 */
record DeviceFootprints(Set<String> resolved, Set<String> trees, Set<String> others) {

    private static final int MAX_HOPS = 40;

    /** True when corrupting {@code path} may change what the scan says about this device. */
    boolean touchedBy(String path) {
        if (resolved.contains(path)) return true;
        for (String tree : trees) {
            if (within(path, tree) && others.stream().noneMatch(o -> within(path, o))) return true;
        }
        return false;
    }

    static boolean within(String path, String dir) {
        return path.equals(dir) || path.startsWith(dir + "/");
    }

    /** The footprint of PCI function {@code address} in the intact node at {@code node}. */
    static DeviceFootprints ofFunction(Path node, PciAddress address, Optional<Integer> group) throws IOException {
        return of(node, "sys/bus/pci/devices/" + address, group);
    }

    /** The footprint of mdev {@code uuid} in the intact node at {@code node}. */
    static DeviceFootprints ofMdev(Path node, String uuid, int group) throws IOException {
        return of(node, "sys/bus/mdev/devices/" + uuid, Optional.of(group));
    }

    private static DeviceFootprints of(Path node, String entry, Optional<Integer> group) throws IOException {
        Set<String> resolved = new HashSet<>();
        Set<String> trees = new HashSet<>();
        Set<String> others = new HashSet<>();
        String dir = resolve(node, entry, resolved);
        trees.add(dir);
        try (Stream<Path> children = Files.list(node.resolve(dir))) {
            for (Path child : children.toList()) {
                String name = child.getFileName().toString();
                String rel = dir + "/" + name;
                if (Files.isSymbolicLink(child)) {
                    String target = resolve(node, rel, resolved);
                    // the group's members and an mdev's type name are read from inside them
                    if (name.equals("iommu_group") || name.equals("mdev_type")) trees.add(target);
                } else if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)
                        && (PciAddress.tryParse(name).isPresent() || MdevInstance.isUuid(name))) {
                    others.add(rel);
                }
            }
        }
        if (group.isPresent()) resolve(node, "dev/vfio/" + group.get(), resolved);
        return new DeviceFootprints(resolved, trees, others);
    }

    /**
     * Resolves {@code rel} inside its root ({@code sys} or {@code dev}) the way the scanner
     * does, one component at a time, and records every entry it looks at. An intact fixture's
     * good device never needs to leave the root; a link that would is a fixture bug.
     */
    private static String resolve(Path node, String rel, Set<String> seen) throws IOException {
        List<String> parts = List.of(rel.split("/"));
        String current = parts.get(0);
        Deque<String> pending = new ArrayDeque<>(parts.subList(1, parts.size()));
        int hops = 0;
        while (!pending.isEmpty()) {
            String part = pending.pollFirst();
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                if (!current.contains("/")) throw new IOException(rel + " leads out of its root");
                current = current.substring(0, current.lastIndexOf('/'));
                continue;
            }
            String next = current + "/" + part;
            seen.add(next);
            Path p = node.resolve(next);
            if (Files.isSymbolicLink(p)) {
                if (++hops > MAX_HOPS) throw new IOException(rel + " loops");
                String target = Files.readSymbolicLink(p).toString();
                if (target.startsWith("/")) throw new IOException(rel + " has an absolute link");
                List<String> t = List.of(target.split("/"));
                for (int i = t.size() - 1; i >= 0; i--) pending.addFirst(t.get(i));
                continue;
            }
            current = next;
        }
        return current;
    }
}
