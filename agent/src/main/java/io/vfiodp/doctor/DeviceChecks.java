package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import java.util.ArrayList;
import java.util.List;

/** The per-device checks, their findings grouped by device: every line about one GPU together, in address order. */
final class DeviceChecks implements Check {

    private static final List<DeviceCheck> PER_DEVICE = List.of(new DriverCheck(), new GroupCheck(), new CompanionsCheck(), new NumaCheck(),
            new ResetCheck(), new VgpuCheck());

    @Override
    public List<Finding> run(NodeView node) {
        List<Finding> all = new ArrayList<>();
        for (PciFunction f : node.candidates()) {
            for (DeviceCheck c : PER_DEVICE) c.about(node, f).ifPresent(o -> all.add(Finding.about(c.id(), f.address().toString(), o)));
        }
        return all;
    }
}
