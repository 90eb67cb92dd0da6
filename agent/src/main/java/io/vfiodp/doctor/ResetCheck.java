package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ResetSupport;
import java.util.List;
import java.util.Optional;

/**
 * {@code device.reset}: how the kernel resets the device when a VM lets go of it. Without a reset
 * the next VM gets the device in whatever state the last one left it.
 */
final class ResetCheck implements DeviceCheck {

    static final String ID = "device.reset";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Optional<Outcome> about(NodeView node, PciFunction f) {
        if (Devices.hostsVgpus(node.host(), f)) return Optional.empty();
        return Optional.ofNullable(node.resets().get(f.address())).map(reset -> outcome(f, reset));
    }

    private static Outcome outcome(PciFunction f, ResetSupport reset) {
        String file = "/sys/bus/pci/devices/" + f.address() + "/reset_method";
        return switch (reset.methods()) {
            case Reading.Found<List<String>>(List<String> methods) when !methods.isEmpty() ->
                    new Outcome.Ok("reset_method: " + String.join(" ", methods));
            case Reading.Found<List<String>> none -> new Outcome.Warn("reset_method is empty: every reset method was turned off",
                    Fix.now("give the kernel its reset methods back", List.of("echo default > " + file)));
            case Reading.Unreadable<List<String>> u -> new Outcome.Warn("cannot read " + u.describe(),
                    Fix.advice("run doctor where --sysfs-root is the host's /sys"));
            case Reading.Absent<List<String>> a -> reset.resetFile().known().orElse(false)
                    ? new Outcome.Ok("can be reset (this kernel lists no reset_method)")
                    : new Outcome.Warn("no reset method: the kernel cannot reset it between two VMs",
                            Fix.advice("give it to one VM at a time for long, or reset the host between users; a firmware or kernel"
                                    + " update may add a method"));
        };
    }
}
