package io.vfiodp.dra;

import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * All the driver's step knows, frozen: what the node offers and the view built from it, both
 * servers, the kubelet's last verdict, the slices and the health list, the prepared claims and the
 * kubelet's calls being worked on. gRPC handlers and status readers see it as it was after a step.
 *
 * @param applied    a node state arrived: until then nothing is published
 * @param registered the kubelet's last registration verdict; empty before the first
 * @param claims     the prepared claims by UID: those of the checkpoint, and those of a call in progress
 * @param lost       when the checkpoint was lost and the claims the kubelet still has are not all in {@code claims} again
 * @param calls      the kubelet's calls on the claims, in arrival order; the first is being worked on
 */
record DriverState(TargetState target, boolean applied, DriverView view, SocketStates sockets, Optional<Boolean> registered,
                   SliceState slices, HealthList health, SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost, List<ClaimCall> calls,
                   boolean closed) {

    DriverState {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(view, "view");
        Objects.requireNonNull(sockets, "sockets");
        Objects.requireNonNull(registered, "registered");
        Objects.requireNonNull(slices, "slices");
        Objects.requireNonNull(health, "health");
        claims = Collections.unmodifiableSortedMap(new TreeMap<>(claims));
        Objects.requireNonNull(lost, "lost");
        calls = List.copyOf(calls);
    }

    /** At start: the claims the checkpoint recorded, nothing offered or served yet, both servers due at {@code now}. */
    static DriverState initial(SortedMap<String, PreparedClaim> claims, long now) {
        return initial(claims, Optional.empty(), now);
    }

    /** As {@link #initial(SortedMap, long)}, with the checkpoint {@code lost}: {@code claims} is what it still said. */
    static DriverState initial(SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost, long now) {
        return new DriverState(TargetState.EMPTY, false, DriverView.EMPTY, SocketStates.startingAt(now), Optional.empty(), SliceState.INITIAL,
                HealthList.NONE, claims, lost, List.of(), false);
    }

    /**
     * The IDs of the devices prepared claims hold, with those a call in progress may yet hold (a
     * claim being prepared, one being unprepared whose removal is not recorded): what the device
     * plugins must not offer.
     */
    Set<String> heldDevices() {
        Set<String> held = new HashSet<>();
        claims.values().forEach(c -> add(c, held));
        for (ClaimCall call : calls) {
            switch (call) {
                case ClaimCall.Prepare p -> {
                    if (p.awaiting() instanceof ClaimCall.Write w) add(w.claim(), held);
                }
                case ClaimCall.Unprepare u -> u.removed().values().forEach(c -> add(c, held));
            }
        }
        return held;
    }

    private static void add(PreparedClaim c, Set<String> held) {
        c.devices().forEach(d -> held.add(d.deviceId()));
    }

    /** The driver's standing, for probes, metrics and logs. */
    DraStatus status(String driver) {
        Map<ResourceName, int[]> counts = new LinkedHashMap<>();
        for (DraDevice d : view.devices().values()) {
            int[] c = counts.computeIfAbsent(d.resource(), r -> new int[2]);
            c[0]++;
            if (d.healthy()) c[1]++;
        }
        List<DraStatus.Resource> resources = new ArrayList<>();
        counts.forEach((name, c) -> resources.add(new DraStatus.Resource(name, c[0], c[1])));
        return new DraStatus(driver, sockets.serving(), registered, resources, claims.size(), slices.generation(), slices.problem());
    }
}
