package io.vfiodp.holders;

import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A device this node offers, as attribution needs it: its ID (PCI address or mdev UUID, what
 * PodResources lists for a device plugin), its name in this node's DRA pool (what PodResources lists
 * for a claim), the resource and the side that offer it, and its health.
 *
 * @param draName the device's name in the pool, whichever side offers it now: a claim prepared before a switch still names it
 */
public record OfferedDevice(String id, ResourceName resource, Route route, String draName, Health health) {

    public OfferedDevice {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(draName, "draName");
        Objects.requireNonNull(health, "health");
    }

    public OfferedDevice withHealth(Health now) {
        return new OfferedDevice(id, resource, route, draName, now);
    }

    public static OfferedDevice of(ExposedDevice d, ResourceName resource, Route route) {
        return new OfferedDevice(d.id(), resource, route, DeviceNames.of(d), d.health());
    }

    /** Every device of {@code state}: the device plugins' and DRA's. */
    public static List<OfferedDevice> of(TargetState state) {
        List<OfferedDevice> out = new ArrayList<>();
        add(out, state.plugins(), Route.DEVICE_PLUGIN);
        add(out, state.dra().resources(), Route.DRA);
        return List.copyOf(out);
    }

    private static void add(List<OfferedDevice> out, DesiredState state, Route route) {
        for (DesiredResource r : state.resources().values()) {
            for (ExposedDevice d : r.devices()) out.add(of(d, r.name(), route));
        }
    }
}
