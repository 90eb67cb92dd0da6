package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The per-device checks, their findings grouped by device: every line about one GPU together, in address order. */
final class DeviceChecks implements Check {

    private static final List<Check> PER_DEVICE = List.of(new DriverCheck(), new GroupCheck(), new CompanionsCheck(), new NumaCheck(),
            new ResetCheck(), new VgpuCheck());

    @Override
    public List<Finding> run(NodeView node) {
        List<Finding> all = new ArrayList<>();
        for (Check c : PER_DEVICE) all.addAll(c.run(node));
        Map<String, Integer> order = new HashMap<>();
        for (PciFunction f : node.candidates()) order.put(f.address().toString(), order.size());
        // stable: within a device, the checks keep their order
        all.sort(Comparator.comparingInt(f -> order.get(f.subject().orElseThrow())));
        return all;
    }
}
