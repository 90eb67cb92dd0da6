package io.vfiodp.plugin;

import io.vfiodp.plugin.ReconcileAction.Log;
import io.vfiodp.plugin.ReconcileAction.NotifyHealthChanged;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import java.util.ArrayList;
import java.util.List;

/**
 * What operators and the listener hear when a served resource's devices change: one line per
 * device added, removed or changing health, and a health notification (never for devices that
 * appear or disappear, which are not health transitions).
 */
final class ViewChanges {

    private ViewChanges() {}

    static List<ReconcileAction> between(ResourceView before, ResourceView after) {
        List<ReconcileAction> out = new ArrayList<>();
        for (ExposedDevice d : after.devices().values()) {
            ExposedDevice old = before.devices().get(d.id());
            if (old == null) {
                out.add(Log.info(after.name() + ": device " + d.id() + " added (NUMA " + d.numaNode() + ", IOMMU group " + d.iommuGroup() + ", "
                        + d.health().wireValue() + ")"));
            } else if (!old.health().equals(d.health())) {
                out.add(new NotifyHealthChanged(after.name(), d.id(), old.health(), d.health()));
                out.add(d.health() instanceof Health.Unhealthy(String reason)
                        ? Log.warn(after.name() + ": device " + d.id() + " is now Unhealthy: " + reason)
                        : Log.info(after.name() + ": device " + d.id() + " is Healthy again"));
            }
        }
        for (String id : before.devices().keySet()) {
            if (!after.devices().containsKey(id)) out.add(Log.info(after.name() + ": device " + id + " removed"));
        }
        return out;
    }

    /** " (id, id unhealthy, ...)" for the log line of a server that starts, empty without devices. */
    static String summary(ResourceView view) {
        if (view.devices().isEmpty()) return "";
        StringBuilder sb = new StringBuilder(" (");
        for (ExposedDevice d : view.devices().values()) {
            if (sb.length() > 2) sb.append(", ");
            sb.append(d.id());
            if (!d.health().isHealthy()) sb.append(" unhealthy");
        }
        return sb.append(')').toString();
    }
}
