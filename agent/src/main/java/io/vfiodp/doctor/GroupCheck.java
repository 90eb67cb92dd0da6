package io.vfiodp.doctor;

import io.vfiodp.host.IommuGroup;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.policy.GroupViability;
import io.vfiodp.policy.PolicyEngine;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code device.group}: whether VFIO will hand the device's IOMMU group out. It does only while no
 * member is on a host driver ("group N is not viable" when the VM starts); the finding names the
 * members in the way and the commands that move them. A vGPU host is left out: its vGPUs have
 * groups of their own.
 */
final class GroupCheck implements DeviceCheck {

    static final String ID = "device.group";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        return Devices.hostsVgpus(node.host(), f) ? Optional.empty() : Optional.of(outcome(node, f));
    }

    private static Outcome outcome(NodeView node, PciFunction f) {
        if (f.iommuGroup().isEmpty()) {
            return new Outcome.Warn("no IOMMU group: the IOMMU is off", Fix.advice("turn the IOMMU on: see iommu and iommu.cmdline"));
        }
        int group = f.iommuGroup().getAsInt();
        List<PciFunction> blocking = GroupViability.blockingMates(node.host(), group, f.address());
        if (!blocking.isEmpty()) {
            return new Outcome.Warn("IOMMU group " + group + " is not viable: " + blocking.stream().map(Devices::withDriver).collect(Collectors.joining(", ")),
                    Commands.moveToVfioPci(node, "move " + (blocking.size() == 1 ? "it" : "them") + " to vfio-pci too: VFIO hands a group out only while no"
                            + " member is on a host driver", blocking, blocking));
        }
        Optional<ScanProblem> unread = node.host().group(group).flatMap(IommuGroup::membersUnread);
        if (unread.isPresent()) {
            return new Outcome.Warn("IOMMU group " + group + "'s members could not be read: " + node.roots().sys(unread.get().path()) + ": "
                    + unread.get().reason() + ": none of them is on a host driver, but a member not seen may be",
                    Fix.advice("run doctor where --sysfs-root is the host's /sys, readable; VFIO hands a group out only while no member is on"
                            + " a host driver"));
        }
        boolean onVfio = f.driver().map(PolicyEngine::isVfioDriver).orElse(false);
        if (onVfio && !node.host().devNodes().hasGroupNode(group)) {
            return new Outcome.Warn("no " + node.roots().dev().resolve("vfio/" + group) + ": the group's device node is not visible here",
                    Fix.advice("mount the host's /dev/vfio (the kernel makes /dev/vfio/" + group + " when a member binds to vfio-pci)"));
        }
        int members = node.host().group(group).map(g -> g.members().size()).orElse(1);
        return new Outcome.Ok("IOMMU group " + group + " is viable" + (members == 1 ? " (the device is alone in it)"
                : " (" + members + " members, none on a host driver)"));
    }
}
