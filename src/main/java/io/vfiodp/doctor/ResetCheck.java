package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ResetSupport;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code device.reset}: how the kernel resets the device when a VM lets go of it. Without a reset
 * the next VM gets the device in whatever state the last one left it.
 */
final class ResetCheck implements Check {

    static final String ID = "device.reset";

    @Override
    public List<Finding> run(NodeView node) {
        List<Finding> out = new ArrayList<>();
        for (PciFunction f : node.candidates()) {
            if (Devices.hostsVgpus(node.host(), f)) continue;
            ResetSupport reset = node.resets().get(f.address());
            if (reset != null) out.add(Finding.about(ID, f.address().toString(), outcome(f, reset)));
        }
        return out;
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
