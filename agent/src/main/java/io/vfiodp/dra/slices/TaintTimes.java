package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.vfiodp.dra.model.JsonTree;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The fields of device taints the API server owns: {@code timeAdded}, which it stamps on a taint
 * written without one, and the taints themselves, which it drops when the DRADeviceTaints feature
 * is off. A rewrite keeps the stamp of each taint that stays, so that the time reads as when the
 * device turned unhealthy, not when another device changed.
 */
final class TaintTimes {

    private TaintTimes() {}

    /**
     * Gives each taint of {@code next} (as {@link SliceLayout#slice} builds it: mutable maps) that {@code previous} had on the same
     * device (same key, value, effect) its {@code timeAdded}.
     */
    @SuppressWarnings("unchecked")
    static void keep(GenericKubernetesResource previous, GenericKubernetesResource next) {
        Map<String, List<?>> before = new HashMap<>();
        for (Object d : SliceLayout.devices(previous)) before.put(JsonTree.text(d, "name"), JsonTree.list(d, "taints"));
        for (Object d : SliceLayout.devices(next)) {
            List<?> old = before.get(JsonTree.text(d, "name"));
            if (old == null) continue;
            for (Object t : JsonTree.list(d, "taints")) {
                old.stream().filter(o -> same(o, t) && JsonTree.text(o, "timeAdded") != null).findFirst()
                        .ifPresent(o -> ((Map<String, Object>) t).put("timeAdded", JsonTree.text(o, "timeAdded")));
            }
        }
    }

    /** Whether the API server stored {@code written} without a taint that one of its entries carries. */
    static boolean dropped(List<SliceLayout.Entry> written, GenericKubernetesResource stored) {
        Map<String, Object> byName = new HashMap<>();
        for (Object d : SliceLayout.devices(stored)) byName.put(JsonTree.text(d, "name"), d);
        for (SliceLayout.Entry e : written) {
            if (!e.tainted()) continue;
            Object d = byName.get(e.name());
            if (d == null || JsonTree.list(d, "taints").isEmpty()) return true;
        }
        return false;
    }

    private static boolean same(Object a, Object b) {
        return Objects.equals(JsonTree.text(a, "key"), JsonTree.text(b, "key")) && Objects.equals(JsonTree.text(a, "value"), JsonTree.text(b, "value"))
                && Objects.equals(JsonTree.text(a, "effect"), JsonTree.text(b, "effect"));
    }
}
