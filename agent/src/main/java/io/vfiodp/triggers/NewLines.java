package io.vfiodp.triggers;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Of a set of lines recomputed on every pass (configuration problems, scan notes), those that
 * were not there the pass before: each is logged when it appears, not on every pass while it
 * lasts, and again if it goes away and comes back. Confined to the thread that makes the passes.
 */
public final class NewLines {

    private Set<String> last = Set.of();

    /** The lines of {@code current} not in the previous call's, in order; {@code current} becomes the previous. */
    public List<String> since(List<String> current) {
        List<String> fresh = new ArrayList<>();
        for (String line : current) if (!last.contains(line)) fresh.add(line);
        last = new LinkedHashSet<>(current);
        return fresh;
    }
}
