package io.vfiodp.dra;

import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * All the driver's step knows, frozen: what the node offers and the view built from it, both
 * servers, the kubelet's last verdict, the slices and the health list. Status readers see it as it
 * was after a step.
 *
 * @param applied    a node state arrived: until then nothing is published
 * @param registered the kubelet's last registration verdict; empty before the first
 */
record DriverState(TargetState target, boolean applied, DriverView view, SocketStates sockets, Optional<Boolean> registered,
                   SliceState slices, HealthList health, boolean closed) {

    DriverState {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(view, "view");
        Objects.requireNonNull(sockets, "sockets");
        Objects.requireNonNull(registered, "registered");
        Objects.requireNonNull(slices, "slices");
        Objects.requireNonNull(health, "health");
    }

    /** At start: nothing offered or served yet, both servers due at {@code now}. */
    static DriverState initial(long now) {
        return new DriverState(TargetState.EMPTY, false, DriverView.EMPTY, SocketStates.startingAt(now), Optional.empty(), SliceState.INITIAL,
                HealthList.NONE, false);
    }

    /** The driver's standing, for probes, metrics and logs. */
    DraStatus status(String driver, int preparedClaims) {
        Map<ResourceName, int[]> counts = new LinkedHashMap<>();
        for (DraDevice d : view.devices().values()) {
            int[] c = counts.computeIfAbsent(d.resource(), r -> new int[2]);
            c[0]++;
            if (d.healthy()) c[1]++;
        }
        List<DraStatus.Resource> resources = new ArrayList<>();
        counts.forEach((name, c) -> resources.add(new DraStatus.Resource(name, c[0], c[1])));
        return new DraStatus(driver, sockets.serving(), registered, resources, preparedClaims, slices.generation(), slices.problem());
    }
}
