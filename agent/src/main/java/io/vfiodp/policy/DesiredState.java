package io.vfiodp.policy;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything the plugin should serve, by resource name. A device ID appears in at most one
 * resource: the kubelet would otherwise hand one GPU to two pods.
 */
public record DesiredState(SortedMap<ResourceName, DesiredResource> resources) {

    public static final DesiredState EMPTY = new DesiredState(new TreeMap<>());

    public DesiredState {
        TreeMap<ResourceName, DesiredResource> copy = new TreeMap<>(resources);
        Map<String, ResourceName> owner = new HashMap<>();
        for (var e : copy.entrySet()) {
            if (!e.getKey().equals(e.getValue().name())) {
                throw new IllegalArgumentException("resource keyed " + e.getKey() + " is named " + e.getValue().name());
            }
            for (ExposedDevice d : e.getValue().devices()) {
                ResourceName previous = owner.putIfAbsent(d.id(), e.getKey());
                if (previous != null) {
                    throw new IllegalArgumentException("device " + d.id() + " is in both " + previous + " and " + e.getKey());
                }
            }
        }
        resources = Collections.unmodifiableSortedMap(copy);
    }

    /** The IDs of every resource's devices. */
    public Set<String> deviceIds() {
        Set<String> out = new HashSet<>();
        resources.values().forEach(r -> r.devices().forEach(d -> out.add(d.id())));
        return out;
    }

    public static DesiredState of(Iterable<DesiredResource> list) {
        TreeMap<ResourceName, DesiredResource> m = new TreeMap<>();
        for (DesiredResource r : list) {
            if (m.put(r.name(), r) != null) throw new IllegalArgumentException("resource " + r.name() + " given twice");
        }
        return new DesiredState(m);
    }
}
