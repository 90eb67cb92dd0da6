package io.vfiodp.node;

import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.ExposedDevice;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * What the node should serve, as one scan and policy pass decided it: the resources the device
 * plugins serve ({@code plugins}), the {@code /dev} nodes that scan saw, and what goes through DRA
 * instead. Allocate and prepare need the {@code /dev} nodes because iommufd nodes are handed to a
 * container only when they exist on the host. A device is in {@code plugins} or in {@code dra},
 * never in both.
 */
public record TargetState(DesiredState plugins, DevNodes devNodes, DraOffer dra) {

    public static final TargetState EMPTY = new TargetState(DesiredState.EMPTY, DevNodes.NONE);

    public TargetState {
        Objects.requireNonNull(plugins, "plugins");
        Objects.requireNonNull(devNodes, "devNodes");
        Objects.requireNonNull(dra, "dra");
        Set<String> pluginDevices = new HashSet<>();
        for (DesiredResource r : plugins.resources().values()) r.devices().forEach(d -> pluginDevices.add(d.id()));
        for (DesiredResource r : dra.resources().resources().values()) {
            if (plugins.resources().containsKey(r.name())) {
                throw new IllegalArgumentException("resource " + r.name() + " is served both by a device plugin and through DRA");
            }
            for (ExposedDevice d : r.devices()) {
                if (pluginDevices.contains(d.id())) {
                    throw new IllegalArgumentException("device " + d.id() + " is offered both by a device plugin and through DRA");
                }
            }
        }
    }

    /** Nothing through DRA. */
    public TargetState(DesiredState plugins, DevNodes devNodes) {
        this(plugins, devNodes, DraOffer.EMPTY);
    }
}
