package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.policy.PolicyProblem;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code config}: the {@code --config} file, and the entries the policy skipped, as serve would
 * read them; {@code pci.ids}: where device names come from.
 */
final class InputsCheck implements Check {

    static final String CONFIG = "config";
    static final String PCI_IDS = "pci.ids";

    @Override
    public List<Finding> run(NodeView node) {
        return List.of(Finding.of(CONFIG, config(node)), Finding.of(PCI_IDS, pciIds(node.pciIds())));
    }

    private static Outcome config(NodeView node) {
        List<String> problems = new ArrayList<>();
        if (node.config() instanceof ConfigStatus.Loaded l) problems.addAll(l.warnings());
        node.policy().problems().stream().map(PolicyProblem::toString).forEach(problems::add);
        Outcome base = switch (node.config()) {
            case ConfigStatus.Invalid i -> new Outcome.Fail(i.message(),
                    Fix.advice("correct " + i.file() + ": serve refuses to start with it"));
            case ConfigStatus.None n -> new Outcome.Ok("permitted devices from " + node.permittedFrom());
            case ConfigStatus.Loaded l -> new Outcome.Ok(l.file() + " read; permitted devices from " + node.permittedFrom());
        };
        if (base instanceof Outcome.Fail || problems.isEmpty()) return base;
        return new Outcome.Warn(base.detail() + "; " + String.join("; ", problems),
                Fix.advice("correct the entries named: the others are served, these are not"));
    }

    private static Outcome pciIds(Reading<String> ids) {
        return switch (ids) {
            case Reading.Found<String>(String origin) -> new Outcome.Ok("device names from " + origin);
            case Reading.Unreadable<String> u -> new Outcome.Warn(u.describe() + "; names come from the copy in the jar",
                    Fix.advice("point --pci-ids at a readable pci.ids, or leave it out"));
            case Reading.Absent<String> a -> new Outcome.Warn(a.file() + " does not exist; names come from the copy in the jar",
                    Fix.advice("point --pci-ids at a readable pci.ids, or leave it out"));
        };
    }
}
