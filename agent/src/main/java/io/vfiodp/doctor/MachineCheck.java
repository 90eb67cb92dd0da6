package io.vfiodp.doctor;

import java.util.List;

/**
 * {@code host.machine}: a virtual machine or bare metal, and what says so ({@link Platform}). Never
 * fails: it tells the checks below which fixes apply, a hypervisor's or a firmware setup's.
 */
final class MachineCheck implements Check {

    static final String ID = "host.machine";

    @Override
    public List<Finding> run(NodeView node) {
        Platform p = Platform.of(node.kernel().machine(), node.roots());
        String detail = switch (p.kind()) {
            case VIRTUAL -> "a virtual machine: " + p.evidence();
            case BARE_METAL -> "bare metal: " + p.evidence();
            case UNKNOWN -> "cannot tell a virtual machine from bare metal: " + p.evidence();
        };
        return List.of(Finding.of(ID, new Outcome.Ok(detail)));
    }
}
