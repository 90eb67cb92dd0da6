package io.vfiodp.handover;

import io.vfiodp.host.DevNodes;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DeviceProfile;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which of the devices each side wants it may offer now, so that no device is ever allocatable
 * both ways (the kubelet forbids serving one name both ways). Pure: what the sides serve, what
 * prepared claims and pods hold, and the record of what the device plugins offered, all come in.
 *
 * <ul>
 *   <li>A device goes to the device plugins only once the DRA driver no longer offers it and no
 *       prepared claim holds it (until the kubelet unprepares the claim).</li>
 *   <li>A device goes to DRA only once the device plugins no longer offer it and no pod holds it
 *       through them: a device outside the {@link HandoverRecord} needs no proof; one in it needs the
 *       kubelet's PodResources to show it free. Without an answer, none of those moves (fail safe).</li>
 *   <li>A device DRA offers already stays: the device plugins cannot have handed it out since.</li>
 * </ul>
 *
 * A side's "serves" counts what it was handed and may not have taken in yet: the withdrawal of a
 * device and its offer on the other side are always two passes apart.
 */
public final class Handover {

    private Handover() {}

    /**
     * What a pass knows when it decides.
     *
     * @param wanted          what scan, policy and routing want each side to offer
     * @param pluginsServe    the device IDs the device plugins offer, or were handed and may still take in
     * @param draServes       the same for the DRA driver
     * @param claimed         the device IDs prepared DRA claims hold
     * @param record          what a device-plugin pod may hold, as kept across restarts
     * @param pods            what PodResources said, when it was asked
     */
    public record Inputs(TargetState wanted, Set<String> pluginsServe, Set<String> draServes, Set<String> claimed, HandoverRecord record,
                         Optional<PodResourcesReading> pods) {
        public Inputs {
            Objects.requireNonNull(wanted, "wanted");
            pluginsServe = Set.copyOf(pluginsServe);
            draServes = Set.copyOf(draServes);
            claimed = Set.copyOf(claimed);
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(pods, "pods");
        }

        public Inputs withPods(PodResourcesReading reading) {
            return new Inputs(wanted, pluginsServe, draServes, claimed, record, Optional.of(reading));
        }
    }

    /** Why a device a side wants waits. */
    public enum Reason {
        /** The other side offers it (or was handed it): it withdraws first. */
        OTHER_SIDE_OFFERS,
        /** A prepared DRA claim holds it, until the kubelet unprepares the claim. */
        CLAIM_HOLDS,
        /** A pod holds it through a device plugin, until the pod ends. */
        POD_HOLDS,
        /** A pod may hold it through a device plugin, and PodResources was not read or did not answer. */
        UNPROVEN
    }

    /** A device a side wants and may not offer yet; {@code holder} names the pod when one holds it. */
    public record Wait(String device, ResourceName resource, Route towards, Reason reason, Optional<String> holder) {}

    /**
     * What to hand both sides now, and what to record.
     *
     * @param record what a device-plugin pod may hold from now on: written before the device plugins get {@code target}
     */
    public record Outcome(TargetState target, HandoverRecord record, List<Wait> waits) {
        public Outcome {
            waits = List.copyOf(waits);
        }
    }

    /** Whether PodResources is worth asking: some device waits for DRA that only it can clear. */
    public static boolean needsPods(Inputs in) {
        for (DesiredResource r : in.wanted().dra().resources().resources().values()) {
            for (ExposedDevice d : r.devices()) {
                if (!in.draServes().contains(d.id()) && !in.pluginsServe().contains(d.id()) && in.record().mayHold(d.id())) return true;
            }
        }
        return false;
    }

    public static Outcome decide(Inputs in) {
        Map<String, String> podOf = new HashMap<>();
        Set<String> podHeld = new HashSet<>();
        boolean listed = in.pods().orElse(null) instanceof PodResourcesReading.Listed;
        if (in.pods().orElse(null) instanceof PodResourcesReading.Listed l) {
            for (HeldDevice h : l.devices()) {
                if (h instanceof HeldDevice.ByPlugin p) {
                    podHeld.add(p.id());
                    podOf.putIfAbsent(p.id(), p.pod());
                }
            }
        }
        List<Wait> waits = new ArrayList<>();

        List<DesiredResource> plugins = new ArrayList<>();
        Set<String> offeredByPlugins = new HashSet<>();
        for (DesiredResource r : in.wanted().plugins().resources().values()) {
            List<ExposedDevice> kept = new ArrayList<>();
            for (ExposedDevice d : r.devices()) {
                if (in.draServes().contains(d.id())) {
                    waits.add(new Wait(d.id(), r.name(), Route.DEVICE_PLUGIN, Reason.OTHER_SIDE_OFFERS, Optional.empty()));
                } else if (in.claimed().contains(d.id())) {
                    waits.add(new Wait(d.id(), r.name(), Route.DEVICE_PLUGIN, Reason.CLAIM_HOLDS, Optional.empty()));
                } else {
                    kept.add(d);
                    offeredByPlugins.add(d.id());
                }
            }
            if (!kept.isEmpty()) plugins.add(new DesiredResource(r.name(), r.kind(), kept));
        }

        List<DesiredResource> dra = new ArrayList<>();
        SortedMap<String, DeviceProfile> profiles = new TreeMap<>();
        for (DesiredResource r : in.wanted().dra().resources().resources().values()) {
            List<ExposedDevice> kept = new ArrayList<>();
            for (ExposedDevice d : r.devices()) {
                Optional<Wait> wait = draWait(d, r.name(), in, listed, podHeld, podOf);
                if (wait.isPresent()) {
                    waits.add(wait.get());
                } else {
                    kept.add(d);
                    profiles.put(d.id(), in.wanted().dra().profiles().get(d.id()));
                }
            }
            if (!kept.isEmpty()) dra.add(new DesiredResource(r.name(), r.kind(), kept));
        }

        DevNodes devNodes = in.wanted().devNodes();
        TargetState target = new TargetState(DesiredState.of(plugins), devNodes, new DraOffer(DesiredState.of(dra), profiles));
        return new Outcome(target, nextRecord(in, offeredByPlugins, listed, podHeld), waits);
    }

    private static Optional<Wait> draWait(ExposedDevice d, ResourceName resource, Inputs in, boolean listed, Set<String> podHeld,
                                          Map<String, String> podOf) {
        if (in.draServes().contains(d.id())) return Optional.empty();
        if (in.pluginsServe().contains(d.id())) return Optional.of(new Wait(d.id(), resource, Route.DRA, Reason.OTHER_SIDE_OFFERS, Optional.empty()));
        if (!in.record().mayHold(d.id())) return Optional.empty();
        if (!listed) return Optional.of(new Wait(d.id(), resource, Route.DRA, Reason.UNPROVEN, Optional.empty()));
        if (podHeld.contains(d.id())) return Optional.of(new Wait(d.id(), resource, Route.DRA, Reason.POD_HOLDS, Optional.of(podOf.get(d.id()))));
        return Optional.empty();
    }

    /**
     * What a device-plugin pod may hold after this pass: what the device plugins are handed now is
     * added; with PodResources' answer, what neither they offer nor a pod holds is dropped.
     */
    private static HandoverRecord nextRecord(Inputs in, Set<String> offeredNow, boolean listed, Set<String> podHeld) {
        if (listed) {
            Set<String> mayHold = new HashSet<>(offeredNow);
            mayHold.addAll(in.pluginsServe());
            mayHold.addAll(podHeld);
            if (in.record() instanceof HandoverRecord.Known k) mayHold.retainAll(union(k.devices(), offeredNow));
            return new HandoverRecord.Known(mayHold);
        }
        return switch (in.record()) {
            case HandoverRecord.Lost lost -> lost;
            case HandoverRecord.Known k -> new HandoverRecord.Known(union(k.devices(), offeredNow));
        };
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }
}
