package io.vfiodp.serve;

import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A writable copy of a fixture node ({@code sys} and {@code dev}) and the host changes the health
 * tests make to it, each done the way the kernel shows it in sysfs and /dev.
 */
public final class HostTree {

    private final Path root;

    private HostTree(Path root) {
        this.root = root;
    }

    /** Copies {@code fixture} to {@code into}, links re-created as links (fixtures hold link cycles). */
    public static HostTree copy(Path fixture, Path into) throws IOException {
        Trees.copy(fixture, into);
        return new HostTree(into);
    }

    public Path root() {
        return root;
    }

    public Path sys() {
        return root.resolve("sys");
    }

    public Path dev() {
        return root.resolve("dev");
    }

    public void removeGroupNode(int group) throws IOException {
        Files.delete(dev().resolve("vfio").resolve(Integer.toString(group)));
    }

    public void createGroupNode(int group) throws IOException {
        Files.createFile(dev().resolve("vfio").resolve(Integer.toString(group)));
    }

    /** Re-points {@code <address>/driver} at {@code bus/pci/drivers/<driver>}, as a rebind does. */
    public void bind(String address, String driver) throws IOException {
        Files.createDirectories(sys().resolve("bus/pci/drivers").resolve(driver));
        Path link = function(address).resolve("driver");
        Files.deleteIfExists(link);
        Path real = function(address).toRealPath();
        Files.createSymbolicLink(link, real.relativize(sys().toRealPath().resolve("bus/pci/drivers").resolve(driver)));
    }

    /** Puts {@code address} into IOMMU group {@code group}: its link and the group's member link. */
    public void moveToGroup(String address, int group) throws IOException {
        Path groupDir = sys().resolve("kernel/iommu_groups").resolve(Integer.toString(group));
        Path real = function(address).toRealPath();
        Path old = real.resolve("iommu_group").toRealPath();
        Files.deleteIfExists(old.resolve("devices").resolve(address));
        Files.delete(real.resolve("iommu_group"));
        Files.createSymbolicLink(real.resolve("iommu_group"), real.relativize(groupDir.toRealPath()));
        Files.createSymbolicLink(groupDir.resolve("devices").resolve(address), groupDir.resolve("devices").toRealPath().relativize(real));
    }

    /** A function taken off the bus by {@link #unplug}: where its entries pointed, to put them back. */
    public record Unplugged(String address, Path busLink, Path busTarget, Path member, Path memberTarget, int group) {}

    /**
     * Takes a function off the bus, as a hot-remove does: its {@code bus/pci/devices} entry and its
     * IOMMU group's member link go; the group's /dev/vfio node too when no other member is left.
     */
    public Unplugged unplug(String address) throws IOException {
        Path busLink = sys().resolve("bus/pci/devices").resolve(address);
        Path real = function(address).toRealPath();
        Path groupDir = real.resolve("iommu_group").toRealPath();
        int group = Integer.parseInt(groupDir.getFileName().toString());
        Path member = groupDir.resolve("devices").resolve(address);
        Unplugged u = new Unplugged(address, busLink, Files.readSymbolicLink(busLink), member, Files.readSymbolicLink(member), group);
        Files.delete(busLink);
        Files.delete(member);
        try (var left = Files.list(groupDir.resolve("devices"))) {
            if (left.findAny().isEmpty()) Files.deleteIfExists(dev().resolve("vfio").resolve(Integer.toString(group)));
        }
        return u;
    }

    /** Puts an unplugged function back, as a hot-add of the same card does; bound as before, with its group's node. */
    public void plug(Unplugged u) throws IOException {
        Files.createSymbolicLink(u.member(), u.memberTarget());
        Files.createSymbolicLink(u.busLink(), u.busTarget());
        Path node = dev().resolve("vfio").resolve(Integer.toString(u.group()));
        if (!Files.exists(node)) Files.createFile(node);
    }

    /** The function's directory below {@code sys}, as the kernel's DEVPATH names it ({@code /devices/pci0000:17/...}). */
    public String devpath(String address) throws IOException {
        Path sysReal = sys().toRealPath();
        return "/" + sysReal.relativize(function(address).toRealPath());
    }

    /** Removes an mdev, as writing its {@code remove} file does. */
    public Path removeMdev(String uuid) throws IOException {
        Path link = sys().resolve("bus/mdev/devices").resolve(uuid);
        Path target = Files.readSymbolicLink(link);
        Files.delete(link);
        return target;
    }

    /** Puts back an mdev link removed by {@link #removeMdev}. */
    public void restoreMdev(String uuid, Path target) throws IOException {
        Files.createSymbolicLink(sys().resolve("bus/mdev/devices").resolve(uuid), target);
    }

    /** Writes {@code <vf>/nvidia/current_vgpu_type}: 0 clears the vGPU. */
    public void setVgpuType(String vf, int type) throws IOException {
        Files.writeString(function(vf).resolve("nvidia/current_vgpu_type"), type + "\n");
    }

    private Path function(String address) {
        Path p = sys().resolve("bus/pci/devices").resolve(address);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) throw new IllegalArgumentException("no PCI function " + address + " in " + sys());
        return p;
    }
}
