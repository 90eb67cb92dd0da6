package io.vfiodp.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A device the previous policy pass exposed and this one does not stays advertised for one more
 * pass, Unhealthy with the reason it left. The kubelet stops allocating it at once, the
 * transition is logged and posted as a Node event with that reason (a plain disappearance would
 * explain nothing), and the next pass drops it.
 */
public final class Departures {

    private Departures() {}

    /**
     * {@code next}'s desired state plus, as Unhealthy, the devices of {@code previous} (the last
     * pass's own policy output, not what was served) that it lacks.
     */
    public static DesiredState keepOneMorePass(DesiredState previous, PolicyResult next) {
        DesiredState now = next.desiredState();
        Set<String> present = new HashSet<>();
        now.resources().values().forEach(r -> r.devices().forEach(d -> present.add(d.id())));
        Map<ResourceName, List<ExposedDevice>> departed = new TreeMap<>();
        for (DesiredResource r : previous.resources().values()) {
            for (ExposedDevice d : r.devices()) {
                if (present.contains(d.id())) continue;
                departed.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(d.withHealth(Health.unhealthy(whyGone(d, next))));
            }
        }
        if (departed.isEmpty()) return now;
        List<DesiredResource> merged = new ArrayList<>();
        Set<ResourceName> names = new HashSet<>(now.resources().keySet());
        names.addAll(departed.keySet());
        for (ResourceName name : names) {
            DesiredResource current = now.resources().get(name);
            List<ExposedDevice> devices = new ArrayList<>(current == null ? List.of() : current.devices());
            devices.addAll(departed.getOrDefault(name, List.of()));
            devices.sort(ExposedDevice.BY_ID);
            DeviceKind kind = current != null ? current.kind() : previous.resources().get(name).kind();
            merged.add(new DesiredResource(name, kind, devices));
        }
        return DesiredState.of(merged);
    }

    private static String whyGone(ExposedDevice d, PolicyResult next) {
        Decision decision = d.kind() == DeviceKind.MDEV ? next.mdevs().get(d.id()) : next.functions().get(d.pciAddress());
        String what = d.kind() == DeviceKind.MDEV ? "mdev " + d.id() : d.id();
        return switch (decision) {
            case null -> what + " is gone from the host; removed at the next rescan";
            case Decision.Skipped s -> "no longer exposed: " + s.reason() + "; removed at the next rescan";
            case Decision.Companion c -> "no longer exposed: now a companion of " + c.of() + "; removed at the next rescan";
            case Decision.Exposed e -> "no longer exposed: now in " + e.resource() + "; removed at the next rescan";
        };
    }
}
