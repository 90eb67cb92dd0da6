package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.Reading;
import java.util.List;
import java.util.Optional;

/**
 * {@code device.numa}: the NUMA node the device sits on, which the kubelet and the VM's CPU
 * pinning align with. On a host with several nodes, a device without one (firmware without
 * {@code _PXM}) cannot be placed next to its VM's memory.
 */
final class NumaCheck implements DeviceCheck {

    static final String ID = "device.numa";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        return Optional.of(outcome(node, f));
    }

    private static Outcome outcome(NodeView node, PciFunction f) {
        if (f.numaNode() >= 0) return new Outcome.Ok("NUMA node " + f.numaNode());
        Reading<Integer> nodes = node.kernel().numaNodes();
        if (nodes instanceof Reading.Unreadable<Integer> u) {
            return new Outcome.Warn("no NUMA node, and the host's nodes cannot be counted: " + u.describe(),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys"));
        }
        int count = nodes.known().orElse(0);
        if (count > 1) {
            return new Outcome.Warn("no NUMA node on a host with " + count + ": the firmware does not say which one it sits on, so a VM"
                    + " cannot be placed next to it", Fix.advice("update the firmware (ACPI _PXM); meanwhile place such VMs by hand"));
        }
        return new Outcome.Ok("no NUMA node (a host with one node)");
    }
}
