package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A check of one device at a time: what it finds about a candidate, or nothing where it does not apply. */
interface DeviceCheck extends Check {

    String id();

    Optional<Outcome> about(NodeView node, PciFunction device);

    /** One finding per candidate it applies to, in the candidates' order. */
    @Override
    default List<Finding> run(NodeView node) {
        List<Finding> out = new ArrayList<>();
        for (PciFunction f : node.candidates()) about(node, f).ifPresent(o -> out.add(Finding.about(id(), f.address().toString(), o)));
        return out;
    }
}
