package io.vfiodp.doctor;

import io.vfiodp.host.ScanProblem;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code host.scan}: what the scan read, and every entry it had to skip, and every file of the
 * kernel's facts that could not be read (a garbled or unreadable file, a dangling link), named:
 * the checks that need one of them say so too, this line says it whether or not one does.
 */
final class ScanCheck implements Check {

    static final String ID = "host.scan";
    private static final int SHOWN = 5;

    @Override
    public List<Finding> run(NodeView node) {
        List<String> problems = new ArrayList<>();
        for (ScanProblem p : node.host().problems()) problems.add(file(node, p) + ": " + p.reason());
        node.kernel().unreadable().forEach(u -> problems.add(u.describe()));
        String read = node.host().functions().size() + " PCI functions, " + node.host().groups().size() + " IOMMU groups with them, "
                + node.host().mdevs().size() + " mdevs";
        if (problems.isEmpty()) return List.of(Finding.of(ID, new Outcome.Ok("read " + read)));
        String shown = String.join("; ", problems.subList(0, Math.min(SHOWN, problems.size())));
        return List.of(Finding.of(ID, new Outcome.Warn("read " + read + "; skipped " + problems.size() + " entr" + (problems.size() == 1 ? "y" : "ies")
                + ": " + shown + (problems.size() > SHOWN ? "; and " + (problems.size() - SHOWN) + " more" : ""),
                Fix.advice("a skipped device is neither checked nor served, a fact unread is not checked; `inventory` lists every skipped"
                        + " device entry"))));
    }

    /** Scan problems name entries below their root; {@code dev:} ones below /dev's. */
    private static String file(NodeView node, ScanProblem p) {
        if (p.path().startsWith("dev:")) return node.roots().dev().resolve(p.path().substring(4)).toString();
        return node.roots().sys(p.path());
    }
}
