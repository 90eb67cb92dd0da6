package io.vfiodp.host;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The devices whose sysfs entries changed, as kernel uevents name them: what the scan's
 * {@code rescan} reads again. Merging two sets of changes is their union, so a burst of events
 * coalesces into one rescan.
 *
 * @param functions PCI functions added, removed, bound, unbound or changed
 * @param mdevs     mediated devices (UUIDs) added, removed or changed
 */
public record ChangedDevices(SortedSet<PciAddress> functions, SortedSet<String> mdevs) {

    public static final ChangedDevices NONE = new ChangedDevices(new TreeSet<>(), new TreeSet<>());

    public ChangedDevices {
        functions = Collections.unmodifiableSortedSet(new TreeSet<>(Objects.requireNonNull(functions, "functions")));
        mdevs = Collections.unmodifiableSortedSet(new TreeSet<>(Objects.requireNonNull(mdevs, "mdevs")));
    }

    public static ChangedDevices of(Set<PciAddress> functions, Set<String> mdevs) {
        return new ChangedDevices(new TreeSet<>(functions), new TreeSet<>(mdevs));
    }

    public static ChangedDevices function(PciAddress address) {
        return of(Set.of(address), Set.of());
    }

    public ChangedDevices plus(ChangedDevices other) {
        if (other.isEmpty()) return this;
        if (isEmpty()) return other;
        TreeSet<PciAddress> f = new TreeSet<>(functions);
        f.addAll(other.functions);
        TreeSet<String> m = new TreeSet<>(mdevs);
        m.addAll(other.mdevs);
        return new ChangedDevices(f, m);
    }

    public boolean isEmpty() {
        return functions.isEmpty() && mdevs.isEmpty();
    }
}
