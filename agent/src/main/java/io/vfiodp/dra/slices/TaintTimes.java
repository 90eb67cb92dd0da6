package io.vfiodp.dra.slices;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
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

    /** Gives each taint of {@code next} that {@code previous} had on the same device (same key, value, effect) its {@code timeAdded}. */
    static void keep(ResourceSlice previous, ResourceSlice next) {
        Map<String, List<DeviceTaint>> before = new HashMap<>();
        for (Device d : devices(previous)) if (d.getTaints() != null) before.put(d.getName(), d.getTaints());
        for (Device d : devices(next)) {
            List<DeviceTaint> old = before.get(d.getName());
            if (old == null || d.getTaints() == null) continue;
            for (DeviceTaint t : d.getTaints()) {
                old.stream().filter(o -> same(o, t) && o.getTimeAdded() != null).findFirst().ifPresent(o -> t.setTimeAdded(o.getTimeAdded()));
            }
        }
    }

    /** Whether the API server stored {@code written} without a taint that one of its entries carries. */
    static boolean dropped(List<SliceLayout.Entry> written, ResourceSlice stored) {
        Map<String, Device> byName = new HashMap<>();
        for (Device d : devices(stored)) byName.put(d.getName(), d);
        for (SliceLayout.Entry e : written) {
            if (!e.tainted()) continue;
            Device d = byName.get(e.name());
            if (d == null || d.getTaints() == null || d.getTaints().isEmpty()) return true;
        }
        return false;
    }

    private static boolean same(DeviceTaint a, DeviceTaint b) {
        return Objects.equals(a.getKey(), b.getKey()) && Objects.equals(a.getValue(), b.getValue()) && Objects.equals(a.getEffect(), b.getEffect());
    }

    private static List<Device> devices(ResourceSlice s) {
        return s == null || s.getSpec() == null || s.getSpec().getDevices() == null ? List.of() : s.getSpec().getDevices();
    }
}
