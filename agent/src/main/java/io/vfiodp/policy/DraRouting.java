package io.vfiodp.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which resources are served through DRA instead of the device plugins. A resource goes one way
 * as a whole, so a device (which belongs to exactly one resource) is offered one way only.
 *
 * @param all       every resource goes to DRA
 * @param resources the resources that go to DRA when not {@code all}
 */
public record DraRouting(boolean all, SortedSet<ResourceName> resources) {

    public static final DraRouting NONE = new DraRouting(false, new TreeSet<>());
    public static final DraRouting ALL = new DraRouting(true, new TreeSet<>());

    public DraRouting {
        resources = Collections.unmodifiableSortedSet(new TreeSet<>(resources));
        if (all && !resources.isEmpty()) throw new IllegalArgumentException("DRA routing: 'all' and a list of resources exclude each other");
    }

    /**
     * Parses the setting: {@code none} (or empty), {@code all}, or resource names separated by
     * commas ({@code nvidia.com/GRID_T4-1Q,nvidia.com/TU104GL_TESLA_T4}).
     *
     * @throws IllegalArgumentException naming the entry that is not a valid resource name
     */
    public static DraRouting parse(String setting) {
        String s = Objects.requireNonNull(setting, "setting").strip();
        if (s.isEmpty() || s.equals("none")) return NONE;
        if (s.equals("all")) return ALL;
        SortedSet<ResourceName> names = new TreeSet<>();
        for (String part : s.split(",", -1)) {
            String name = part.strip();
            if (name.equals("all") || name.equals("none")) {
                throw new IllegalArgumentException("DRA resources '" + setting + "': '" + name + "' stands alone, not in a list");
            }
            Optional<String> problem = ResourceName.problem(name);
            if (problem.isPresent()) {
                throw new IllegalArgumentException("DRA resources '" + setting + "': '" + name + "' is not a resource name: " + problem.get());
            }
            names.add(ResourceName.of(name));
        }
        return new DraRouting(false, names);
    }

    /**
     * Whether any resource may go through DRA (not {@link #NONE}). Asked by serve's options, where
     * {@code equals} would be the process's first record {@code equals}: its {@code ObjectMethods}
     * bootstrap spins method-handle forms at run time, interpreted, on start-up's path
     * (docs/benchmarks.md, "Choices in the code").
     */
    public boolean routesAny() {
        return all || !resources.isEmpty();
    }

    public Route route(ResourceName resource) {
        return all || resources.contains(resource) ? Route.DRA : Route.DEVICE_PLUGIN;
    }

    /** The state split by route; every resource lands in exactly one part. */
    public Split split(DesiredState state) {
        List<DesiredResource> plugins = new ArrayList<>();
        List<DesiredResource> dra = new ArrayList<>();
        for (DesiredResource r : state.resources().values()) (route(r.name()) == Route.DRA ? dra : plugins).add(r);
        return new Split(DesiredState.of(plugins), DesiredState.of(dra));
    }

    /** Named resources this node does not serve: worth a warning, as a typo sends nothing to DRA. */
    public List<ResourceName> unmatched(DesiredState state) {
        return resources.stream().filter(r -> !state.resources().containsKey(r)).toList();
    }

    /** {@code none}, {@code all} or the names, as {@link #parse} reads them. */
    @Override
    public String toString() {
        if (all) return "all";
        if (resources.isEmpty()) return "none";
        return String.join(",", resources.stream().map(ResourceName::value).toList());
    }

    public record Split(DesiredState devicePlugins, DesiredState dra) {
        public Split {
            Objects.requireNonNull(devicePlugins, "devicePlugins");
            Objects.requireNonNull(dra, "dra");
        }
    }
}
