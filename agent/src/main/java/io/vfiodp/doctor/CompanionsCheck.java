package io.vfiodp.doctor;

import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code device.companions}: the functions that go to the VM with the device, because VFIO hands
 * out whole IOMMU groups. Its own functions (HDMI audio, USB, UCSI of one card) are expected; a
 * device in another slot means the PCIe path does not isolate them (no ACS, or a PCIe-to-PCI
 * bridge), and the two can never go to two VMs.
 */
final class CompanionsCheck implements DeviceCheck {

    static final String ID = "device.companions";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        if (Devices.hostsVgpus(node.host(), f) || f.iommuGroup().isEmpty()) return Optional.empty();
        return Optional.of(outcome(node, f));
    }

    private static Outcome outcome(NodeView node, PciFunction f) {
        int group = f.iommuGroup().getAsInt();
        List<PciFunction> mates = new ArrayList<>();
        for (PciAddress a : node.host().group(group).map(IommuGroup::members).orElse(List.of())) {
            Optional<PciFunction> m = node.host().function(a);
            if (!a.equals(f.address()) && m.isPresent() && !m.get().isPciBridge()) mates.add(m.get());
        }
        List<PciFunction> elsewhere = mates.stream().filter(m -> !Devices.sameSlot(m.address(), f.address())).toList();
        Optional<ScanProblem> unread = node.host().group(group).flatMap(IommuGroup::membersUnread);
        if (elsewhere.isEmpty() && unread.isPresent()) {
            return new Outcome.Warn("not known: IOMMU group " + group + "'s members could not be read (" + node.roots().sys(unread.get().path())
                    + ": " + unread.get().reason() + ")", Fix.advice("run doctor where --sysfs-root is the host's /sys, readable"));
        }
        if (mates.isEmpty()) return new Outcome.Ok("none: alone in IOMMU group " + group);
        if (elsewhere.isEmpty()) {
            return new Outcome.Ok("its own functions travel with it: " + mates.stream().map(Devices::named).collect(Collectors.joining(", ")));
        }
        return new Outcome.Warn("IOMMU group " + group + " also holds " + elsewhere.stream().map(Devices::named).collect(Collectors.joining(", "))
                + ": one VM gets them all, never one of them alone",
                Fix.advice("to pass them through apart, use slots whose PCIe path isolates them (ACS on the root port or switch);"
                        + " pcie_acs_override only hides the sharing, it does not isolate the devices"));
    }
}
