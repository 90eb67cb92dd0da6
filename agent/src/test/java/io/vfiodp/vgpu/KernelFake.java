package io.vfiodp.vgpu;

import io.vfiodp.host.VgpuType;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Plays the kernel for a fixture tree copied to a temporary directory: every write lands in the
 * plain attribute file (the test can read what was written), then the tree changes the way sysfs
 * would. {@code create}: the mdev directory with its {@code mdev_type}, {@code iommu_group} and
 * {@code remove}, the {@code bus/mdev/devices} link, a new IOMMU group and {@code /dev/vfio/N},
 * {@code available_instances} down by one and every other type of the GPU at 0. {@code remove}:
 * all of that undone. {@code current_vgpu_type}: the VF's creatable list empties and the free
 * siblings' lists shrink to the placed type while the GPU has room for it.
 */
public final class KernelFake implements SysfsWriter {

    private final Path sys;
    private final Path dev;
    private final Map<Path, String> failures = new HashMap<>();
    private final Map<Path, List<VgpuType>> catalogs = new HashMap<>();
    private final Map<Integer, Integer> perGpu = new HashMap<>();
    public final List<String> writes = new ArrayList<>();
    private int nextGroup = 500;

    public KernelFake(Path sys, Path dev) {
        this.sys = sys;
        this.dev = dev;
    }

    /** The next write to {@code attribute} (relative to the sys root) fails with this errno text. */
    void failNext(String attribute, String errno) throws IOException {
        failures.put(sys.resolve(attribute).getParent().toRealPath().resolve(Path.of(attribute).getFileName()), errno);
    }

    /** What an SR-IOV GPU can host, and how many VFs of each type fit on it. */
    void sriovCatalog(String physfn, List<VgpuType> types, Map<Integer, Integer> maxPerGpu) throws IOException {
        catalogs.put(sys.resolve("bus/pci/devices").resolve(physfn).toRealPath(), List.copyOf(types));
        perGpu.putAll(maxPerGpu);
        reshape(sys.resolve("bus/pci/devices").resolve(physfn).toRealPath());
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        Path real = attribute.getParent().toRealPath().resolve(attribute.getFileName());
        String errno = failures.remove(real);
        if (errno != null) throw new FileSystemException(attribute.toString(), null, errno);
        writes.add(sys.relativize(attribute) + " <- " + value);
        // current_vgpu_type is the state itself: setType checks the old value before replacing it.
        if (!attribute.getFileName().toString().equals("current_vgpu_type")) Files.writeString(real, value);
        switch (attribute.getFileName().toString()) {
            case "create" -> create(real.getParent(), value);
            case "remove" -> remove(real.getParent());
            case "current_vgpu_type" -> setType(real.getParent().getParent(), Integer.parseInt(value));
            default -> throw new IllegalArgumentException("the fake kernel does not know " + attribute);
        }
    }

    private void create(Path typeDir, String uuid) throws IOException {
        int available = Integer.parseInt(Files.readString(typeDir.resolve("available_instances")).strip());
        if (available == 0) throw new FileSystemException(typeDir.resolve("create").toString(), null, "No space left on device");
        Path parent = typeDir.getParent().getParent();
        Path inst = Files.createDirectory(parent.resolve(uuid));
        link(inst.resolve("mdev_type"), typeDir);
        int group = nextGroup++;
        Path groupDir = Files.createDirectories(sys.resolve("kernel/iommu_groups/" + group + "/devices"));
        link(groupDir.resolve(uuid), inst);
        link(inst.resolve("iommu_group"), groupDir.getParent());
        Files.createFile(inst.resolve("remove"));
        link(sys.resolve("bus/mdev/devices").resolve(uuid), inst);
        Files.createDirectories(typeDir.resolve("devices"));
        link(typeDir.resolve("devices").resolve(uuid), inst);
        Files.createDirectories(dev.resolve("vfio"));
        Files.writeString(dev.resolve("vfio/" + group), "");
        try (Stream<Path> types = Files.list(typeDir.getParent())) {
            for (Path t : types.toList()) {
                Files.writeString(t.resolve("available_instances"), t.equals(typeDir) ? (available - 1) + "\n" : "0\n");
            }
        }
    }

    private void remove(Path inst) throws IOException {
        String uuid = inst.getFileName().toString();
        Path typeDir = inst.resolve("mdev_type").toRealPath();
        Path groupDir = inst.resolve("iommu_group").toRealPath();
        Files.delete(sys.resolve("bus/mdev/devices").resolve(uuid));
        Files.deleteIfExists(typeDir.resolve("devices").resolve(uuid));
        Files.deleteIfExists(dev.resolve("vfio/" + groupDir.getFileName()));
        Trees.deleteRecursively(groupDir);
        Trees.deleteRecursively(inst);
        int available = Integer.parseInt(Files.readString(typeDir.resolve("available_instances")).strip());
        Files.writeString(typeDir.resolve("available_instances"), (available + 1) + "\n");
    }

    private void setType(Path vf, int type) throws IOException {
        Path physfn = vf.resolve("physfn").toRealPath();
        int current = Integer.parseInt(Files.readString(vf.resolve("nvidia/current_vgpu_type")).strip());
        if (type != 0) {
            if (current != 0) throw new FileSystemException(vf.toString(), null, "Device or resource busy");
            boolean creatable = Files.readAllLines(vf.resolve("nvidia/creatable_vgpu_types")).stream()
                    .anyMatch(l -> l.strip().startsWith(type + " ") || l.strip().endsWith(" " + type));
            if (!creatable) throw new FileSystemException(vf.toString(), null, "Invalid argument");
        }
        Files.writeString(vf.resolve("nvidia/current_vgpu_type"), type + "\n");
        reshape(physfn);
    }

    /** Rewrites every VF's creatable list of {@code physfn} from its catalog and what is placed. */
    private void reshape(Path physfn) throws IOException {
        List<VgpuType> catalog = catalogs.get(physfn);
        if (catalog == null) return;
        Map<Path, Integer> vfs = new LinkedHashMap<>();
        try (Stream<Path> siblings = Files.list(physfn.getParent())) {
            for (Path p : siblings.sorted().toList()) {
                Path link = p.resolve("physfn");
                if (Files.isSymbolicLink(link) && link.toRealPath().equals(physfn)) {
                    vfs.put(p, Integer.parseInt(Files.readString(p.resolve("nvidia/current_vgpu_type")).strip()));
                }
            }
        }
        Map<Integer, Integer> placed = new HashMap<>();
        vfs.values().stream().filter(t -> t != 0).forEach(t -> placed.merge(t, 1, Integer::sum));
        for (Map.Entry<Path, Integer> vf : vfs.entrySet()) {
            StringBuilder text = new StringBuilder();
            if (vf.getValue() == 0) {
                for (VgpuType t : catalog) {
                    boolean fits = placed.isEmpty()
                            || (placed.containsKey(t.id()) && placed.get(t.id()) < perGpu.getOrDefault(t.id(), Integer.MAX_VALUE));
                    if (fits) text.append(t.id()).append(" : ").append(t.name()).append('\n');
                }
            }
            Files.writeString(vf.getKey().resolve("nvidia/creatable_vgpu_types"), text.toString());
        }
    }

    private static void link(Path link, Path target) throws IOException {
        Files.createSymbolicLink(link, link.getParent().relativize(target));
    }

}
