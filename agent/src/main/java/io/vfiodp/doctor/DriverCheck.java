package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import io.vfiodp.policy.GroupViability;
import io.vfiodp.policy.PolicyEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code device.driver}: the driver each device is on, and the commands that move it to vfio-pci:
 * now through {@code driver_override} and {@code bind}, and for good through vfio-pci's
 * {@code ids} at boot, which also claims the functions its IOMMU group shares.
 */
final class DriverCheck implements DeviceCheck {

    static final String ID = "device.driver";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        return Optional.of(outcome(node, f));
    }

    private static Outcome outcome(NodeView node, PciFunction f) {
        if (f.bootVga()) {
            return new Outcome.Warn("the boot VGA device: the host's console runs on it" + f.driver().map(d -> " (on " + d + ")").orElse(""),
                    Fix.advice("pass another GPU through; for this one, make another GPU the firmware's primary display first"));
        }
        if (f.driver().map(PolicyEngine::isVfioDriver).orElse(false)) return new Outcome.Ok("on " + f.driver().get());
        if (Devices.hostsVgpus(node.host(), f)) return new Outcome.Ok("on nvidia, hosting vGPUs (see device.vgpu)");
        String detail = f.driver().map(d -> "on " + d + (d.equals("nvidia") || d.equals("nouveau") ? ": the host uses it" : ", a host driver"))
                .orElse("no driver bound");
        List<PciFunction> forGood = new ArrayList<>(List.of(f));
        f.iommuGroup().ifPresent(g -> GroupViability.blockingMates(node.host(), g, f.address()).stream()
                .filter(m -> !m.isPciBridge()).forEach(forGood::add));
        String holders = f.isBoundTo("nvidia") ? "; stop what holds it first (nvidia-persistenced, a display server, DCGM)" : "";
        return new Outcome.Warn(detail, Commands.moveToVfioPci(node, "move it to vfio-pci to pass it through" + holders + ". For good, vfio-pci claims its"
                + " ids" + (forGood.size() > 1 ? " and its group's" : "") + " at boot: every device with them goes to vfio-pci", List.of(f), forGood));
    }
}
