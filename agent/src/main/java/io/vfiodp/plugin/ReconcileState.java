package io.vfiodp.plugin;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.kubelet.ServerState;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.LongToIntFunction;

/**
 * All the reconcile step knows, frozen: what should be served, the views built from it, every
 * served resource's server and registration, and which kubelet is there.
 *
 * @param kubelet        identity of {@code kubelet.sock} at the last sweep, empty when it was missing
 * @param epoch          counts the kubelets seen: a registration holds for one epoch
 * @param nextGeneration the generation the next started server gets
 */
record ReconcileState(TargetState target, SortedMap<ResourceName, ResourceView> views, SortedMap<ResourceName, ResourceState> resources,
                      Optional<FileIdentity> kubelet, long epoch, long nextGeneration, boolean closed) {

    static final ReconcileState INITIAL = new ReconcileState(TargetState.EMPTY, new TreeMap<>(), new TreeMap<>(), Optional.empty(), 0, 1,
            false);

    public ReconcileState {
        views = Collections.unmodifiableSortedMap(new TreeMap<>(views));
        resources = Collections.unmodifiableSortedMap(new TreeMap<>(resources));
    }

    /** Every resource's standing; {@code openStreams} counts the ListAndWatch streams of a server generation. */
    List<ResourceStatus> statuses(LongToIntFunction openStreams) {
        List<ResourceStatus> out = new ArrayList<>();
        for (ResourceState r : resources.values()) {
            ResourceView v = views.get(r.name());
            int devices = v == null ? 0 : v.devices().size();
            int healthy = v == null ? 0 : (int) v.devices().values().stream().filter(d -> d.health().isHealthy()).count();
            boolean serving = r.server() instanceof ServerState.Up;
            boolean registered = serving && r.registration() instanceof Registration.Registered;
            int streams = r.server() instanceof ServerState.Up up ? openStreams.applyAsInt(up.generation()) : 0;
            out.add(new ResourceStatus(r.name(), r.socket(), serving, registered, devices, healthy, streams));
        }
        return List.copyOf(out);
    }
}
