package io.vfiodp.doctor;

import java.util.List;

/** One check: a pure function of what was read. Node-wide checks give one finding, per-device checks one per device. */
interface Check {
    List<Finding> run(NodeView node);
}
