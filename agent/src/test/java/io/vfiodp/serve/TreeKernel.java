package io.vfiodp.serve;

import io.vfiodp.host.uevent.Uevent;
import io.vfiodp.host.uevent.UeventQueue;
import io.vfiodp.host.uevent.UeventSocket;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fake kernel over a {@link HostTree}: changes the tree as an operator's action changes sysfs
 * and /dev, and sends the uevents Linux sends for it, in its order (docs/development.md, "Real-kernel tests";
 * {@code RealKernelUeventIT} shows them on Linux 6.1). Each method returns the events it sent.
 */
public final class TreeKernel {

    public final HostTree host;
    public final UeventQueue uevents = new UeventQueue();
    private int nextVfioDev;

    public TreeKernel(HostTree host) {
        this.host = host;
    }

    /** How serve opens this kernel's uevent socket. */
    UeventWiring.Opener opener() {
        return () -> new UeventSocket.Opening.Opened(uevents);
    }

    /**
     * Rebinds {@code address} from vfio-pci to a host driver while another member keeps its group's
     * node: {@code remove vfio-dev}, {@code unbind pci}, {@code bind pci}. Nothing in /dev changes.
     */
    public List<Uevent> rebindFromVfio(String address, String driver) throws IOException {
        String devpath = host.devpath(address);
        host.bind(address, driver);
        return send(event("remove", devpath + "/vfio-dev/vfio" + nextVfioDev, "vfio-dev", Map.of()),
                pci("unbind", devpath, address, Map.of()),
                pci("bind", devpath, address, Map.of("DRIVER", driver)));
    }

    /** Rebinds {@code address} from a host driver to vfio-pci, its group's node already there: {@code unbind pci}, {@code add vfio-dev}, {@code bind pci}. */
    public List<Uevent> rebindToVfio(String address) throws IOException {
        String devpath = host.devpath(address);
        host.bind(address, "vfio-pci");
        return send(pci("unbind", devpath, address, Map.of()),
                event("add", devpath + "/vfio-dev/vfio" + (++nextVfioDev), "vfio-dev", Map.of()),
                pci("bind", devpath, address, Map.of("DRIVER", "vfio-pci")));
    }

    /** A function taken off the bus, with the DEVPATH it had. */
    public record Removed(HostTree.Unplugged unplugged, String devpath) {}

    /**
     * Hot-removes a card: its functions (on vfio-pci, their group's only members) in reverse order,
     * each {@code remove vfio-dev}, {@code remove vfio} after the group's last, {@code unbind pci},
     * {@code remove pci}.
     */
    public List<Removed> hotRemove(List<String> functions) throws IOException {
        List<Removed> removed = new ArrayList<>();
        List<Uevent> events = new ArrayList<>();
        for (String address : functions.reversed()) {
            String devpath = host.devpath(address);
            HostTree.Unplugged u = host.unplug(address);
            removed.add(new Removed(u, devpath));
            events.add(event("remove", devpath + "/vfio-dev/vfio" + nextVfioDev, "vfio-dev", Map.of()));
            if (!groupNode(u.group())) events.add(event("remove", "/devices/virtual/vfio/" + u.group(), "vfio", Map.of("DEVNAME", "vfio/" + u.group())));
            events.add(pci("unbind", devpath, address, Map.of()));
            events.add(pci("remove", devpath, address, Map.of()));
        }
        send(events.toArray(Uevent[]::new));
        return removed.reversed();
    }

    /**
     * Hot-adds a card back where vfio-pci claims it at once (its {@code ids=} or a driverctl
     * override): per function {@code add pci}, {@code add vfio} for the group's first,
     * {@code add vfio-dev}, {@code bind pci}.
     */
    public List<Uevent> hotAdd(List<Removed> card) throws IOException {
        List<Uevent> events = new ArrayList<>();
        for (Removed r : card) {
            HostTree.Unplugged u = r.unplugged();
            boolean first = !groupNode(u.group());
            host.plug(u);
            events.add(pci("add", r.devpath(), u.address(), Map.of()));
            if (first) events.add(event("add", "/devices/virtual/vfio/" + u.group(), "vfio", Map.of("DEVNAME", "vfio/" + u.group())));
            events.add(event("add", r.devpath() + "/vfio-dev/vfio" + (++nextVfioDev), "vfio-dev", Map.of()));
            events.add(pci("bind", r.devpath(), u.address(), Map.of("DRIVER", "vfio-pci")));
        }
        return send(events.toArray(Uevent[]::new));
    }

    /** A change the kernel makes and no event tells (a test's way to see whether a pass read everything). */
    public void silently(Change change) throws IOException {
        change.apply(host);
    }

    @FunctionalInterface
    public interface Change {
        void apply(HostTree host) throws IOException;
    }

    private Uevent pci(String action, String devpath, String address, Map<String, String> more) {
        Map<String, String> p = new java.util.TreeMap<>(more);
        p.put("PCI_SLOT_NAME", address);
        return event(action, devpath, "pci", p);
    }

    private Uevent event(String action, String devpath, String subsystem, Map<String, String> more) {
        return uevents.event(action, devpath, subsystem, more);
    }

    private List<Uevent> send(Uevent... events) {
        uevents.send(events);
        return new ArrayList<>(List.of(events));
    }

    /** Whether the group's /dev/vfio node exists. */
    public boolean groupNode(int group) {
        return Files.exists(host.dev().resolve("vfio").resolve(Integer.toString(group)));
    }
}
