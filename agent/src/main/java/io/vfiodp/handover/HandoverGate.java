package io.vfiodp.handover;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.NodeSide;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Route;
import io.vfiodp.triggers.NewLines;
import io.vfiodp.triggers.ProblemLog;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-node switch between the device plugins and DRA, as each pass applies it: what each side
 * offers and was handed, what prepared claims hold, the {@link HandoverRecord} kept across restarts
 * and, only when a device waits on it, the kubelet's PodResources. {@link Handover} decides; this
 * class reads, keeps the record written before the device plugins are handed a device, and says
 * what waits and why (each line once, as it appears). The node loop hands the sides their states
 * through it ({@link #dra}, {@link #plugins}), so it knows what each was handed. Confined to the
 * pass's thread.
 */
public final class HandoverGate {

    /** How long a pass waits for a side to take in the state the pass before handed it. */
    public static final Duration TAKE_IN_WAIT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.handover");

    private final HandoverRecordFile file;
    private final Supplier<PodResourcesReading> pods;
    private final Duration takeInWait;
    private final Supplier<HandoverClaims> claimed;
    private final String driver;
    private final String pool;
    private final Function<ExposedDevice, String> draName;
    private final HandoverSide plugins = new HandoverSide();
    private final HandoverSide dra = new HandoverSide();
    private final NewLines waits = new NewLines();
    private final ProblemLog unproven = new ProblemLog(log);
    private final ProblemLog unrecorded = new ProblemLog(log);
    private final ProblemLog claimsLost = new ProblemLog(log);
    private HandoverRecord record;
    private boolean waiting;

    /**
     * @param pods       the kubelet's PodResources, asked only when a device waits for DRA that it alone can clear
     * @param claimed    the devices prepared DRA claims hold (the driver's, or its checkpoint's while no driver runs); when their
     *                   record was lost, PodResources is asked each pass, and any device counts as held until it answers
     * @param driver     the DRA driver's name and {@code pool} this node's: PodResources' DRA devices of theirs count as claimed
     * @param draName    the name the DRA driver gives a device, as PodResources lists it
     * @param takeInWait how long a pass waits for a side to take in what it was handed ({@link #TAKE_IN_WAIT})
     */
    public HandoverGate(HandoverRecordFile file, Supplier<PodResourcesReading> pods, Supplier<HandoverClaims> claimed, String driver,
                        String pool, Function<ExposedDevice, String> draName, Duration takeInWait) {
        this.file = file;
        this.pods = pods;
        this.takeInWait = takeInWait;
        this.claimed = claimed;
        this.driver = driver;
        this.pool = pool;
        this.draName = draName;
        this.record = file.load();
        if (record instanceof HandoverRecord.Lost lost) {
            log.warn("switch: the record of what the device plugins offered is lost: {}. Any device may be held by a pod through a device"
                    + " plugin: none goes to DRA until the kubelet's PodResources shows that no pod holds it; then the record is written"
                    + " again", lost.reason());
        }
    }

    /** What each side may offer of what {@code wanted} gives it. */
    public TargetState decide(TargetState wanted) {
        HandoverClaims claims = claimed.get();
        Set<String> held = new HashSet<>(claims.known());
        Handover.Inputs in = new Handover.Inputs(wanted, plugins.mayOffer(takeInWait), dra.mayOffer(takeInWait), held, record,
                Optional.empty());
        if (Handover.needsPods(in) || claims instanceof HandoverClaims.Unknown) {
            PodResourcesReading reading = pods.get();
            held.addAll(claimedThroughPods(reading, wanted));
            if (claims instanceof HandoverClaims.Unknown lost) heldByLostClaims(lost, reading, wanted, held);
            in = new Handover.Inputs(wanted, in.pluginsServe(), in.draServes(), held, record, Optional.of(reading));
            if (reading instanceof PodResourcesReading.Listed) unproven.resolved("switch: the kubelet's PodResources API answers again");
        } else {
            claimsLost.forget();
        }
        Handover.Outcome o = Handover.decide(in);
        TargetState target = o.target();
        if (o.record() instanceof HandoverRecord.Known next && !next.equals(record)) {
            try {
                file.write(next);
                record = next;
                unrecorded.resolved("switch: " + file.file() + " is written again");
            } catch (IOException e) {
                // a device the file does not name would, after a restart, go to DRA unproven while a pod may hold it
                target = withinRecord(target, record);
                unrecorded.problem(e.getMessage(), "switch: " + e.getMessage() + "; the device plugins offer no device it does not name"
                        + " until it can be written");
            }
        } else if (o.record() instanceof HandoverRecord.Lost lost) {
            record = lost;
        }
        report(o.waits(), in.pods());
        waiting = !o.waits().isEmpty();
        return target;
    }

    /**
     * {@code side}, the DRA driver, as the passes hand it their states: each counts as offered
     * until taken in, and after until the next is; a pass waits for the driver to take its state
     * in, the slices included, so that the device plugins get a device of this state only once the
     * API no longer lists it in this node's pool (at the start, the slices a previous run left).
     */
    public NodeSide dra(NodeSide side) {
        return handing(side, this::handedToDra);
    }

    /**
     * {@code side}, the device plugins, as the passes hand it their states: each counts as offered
     * until taken in, and after until the next is.
     */
    public NodeSide plugins(NodeSide side) {
        return handing(side, this::handedToPlugins);
    }

    private static NodeSide handing(NodeSide side, BiConsumer<Set<String>, CompletableFuture<Void>> handed) {
        return new NodeSide() {
            @Override
            public CompletableFuture<Void> apply(TargetState state) {
                CompletableFuture<Void> takenIn = side.apply(state);
                handed.accept(side.offers(state), takenIn);
                return takenIn;
            }

            @Override
            public Set<String> offers(TargetState state) {
                return side.offers(state);
            }
        };
    }

    /** The device plugins were handed {@code devices}. */
    void handedToPlugins(Set<String> devices, CompletableFuture<Void> takenIn) {
        plugins.handed(devices, takenIn);
    }

    /** The DRA driver was handed {@code devices}: waits for it to take them in. */
    void handedToDra(Set<String> devices, CompletableFuture<Void> takenIn) {
        dra.handed(devices, takenIn);
        dra.awaitLast(takeInWait);
    }

    /** Whether a device waits for a side to let go of it: another pass is due soon. */
    public boolean waiting() {
        return waiting;
    }

    /**
     * With the claims' record lost, every device counts as held by a claim until PodResources
     * answers; then the devices it lists for this driver's claims do ({@link #claimedThroughPods}).
     */
    private void heldByLostClaims(HandoverClaims.Unknown lost, PodResourcesReading reading, TargetState wanted, Set<String> held) {
        if (reading instanceof PodResourcesReading.Unreadable u) {
            held.addAll(wanted.plugins().deviceIds());
            held.addAll(wanted.dra().resources().deviceIds());
            claimsLost.problem("unreadable", "switch: " + lost.reason() + ". The kubelet's PodResources API cannot be read (" + u.reason()
                    + "): any device may be held by a DRA claim the kubelet still has prepared, so the device plugins offer none until it"
                    + " answers (mount /var/lib/kubelet/pod-resources)");
        } else {
            claimsLost.problem("listed", "switch: " + lost.reason() + ". The devices the kubelet's PodResources lists for DRA claims of "
                    + driver + " stay out of the device plugins; the rest are offered");
        }
    }

    /** The wanted devices PodResources says a claim of this driver's pool holds. */
    private Set<String> claimedThroughPods(PodResourcesReading reading, TargetState wanted) {
        if (!(reading instanceof PodResourcesReading.Listed listed)) return Set.of();
        Map<String, String> idOf = new HashMap<>();
        for (DesiredState s : List.of(wanted.plugins(), wanted.dra().resources())) {
            for (DesiredResource r : s.resources().values()) for (ExposedDevice d : r.devices()) idOf.put(draName.apply(d), d.id());
        }
        Set<String> out = new HashSet<>();
        for (HeldDevice h : listed.devices()) {
            if (h instanceof HeldDevice.ByClaim c && c.driver().equals(driver) && c.pool().equals(pool) && idOf.containsKey(c.device())) {
                out.add(idOf.get(c.device()));
            }
        }
        return out;
    }

    private void report(List<Handover.Wait> all, Optional<PodResourcesReading> pods) {
        List<String> lines = new ArrayList<>();
        int unprovenCount = 0;
        for (Handover.Wait w : all) {
            String device = "switch: " + w.device() + " (" + w.resource() + ")";
            switch (w.reason()) {
                case OTHER_SIDE_OFFERS -> lines.add(device + " goes to " + side(w.towards()) + " at the next pass, once "
                        + side(w.towards() == Route.DRA ? Route.DEVICE_PLUGIN : Route.DRA) + " no longer offers it");
                case CLAIM_HOLDS -> lines.add(device + " waits for the device plugins: a prepared DRA claim holds it until the kubelet"
                        + " unprepares the claim");
                case POD_HOLDS -> lines.add(device + " waits for DRA: pod " + w.holder().orElse("?") + " holds it through the device plugin;"
                        + " it joins the ResourceSlice when the pod ends");
                case UNPROVEN -> unprovenCount++;
            }
        }
        for (String line : waits.since(lines)) log.info("{}", line);
        if (unprovenCount == 0 && pods.isEmpty()) unproven.forget();
        if (unprovenCount > 0) {
            String why = pods.orElse(null) instanceof PodResourcesReading.Unreadable u ? u.reason() : "PodResources was not asked";
            unproven.problem("unproven", "switch: the kubelet's PodResources API cannot be read (" + why + "): " + unprovenCount
                    + " device(s) routed to DRA stay out of the ResourceSlices, since a pod may hold them through a device plugin;"
                    + " mount /var/lib/kubelet/pod-resources (docs/dra-migration.md)");
        }
        if (!all.isEmpty() || !waiting) return;
        log.info("switch: every device is offered where --dra-resources routes it");
    }

    private static String side(Route r) {
        return r == Route.DRA ? "DRA" : "the device plugins";
    }

    /** {@code target} with the device plugins' part cut to what {@code record} names (a record that names none says any). */
    private static TargetState withinRecord(TargetState target, HandoverRecord record) {
        List<DesiredResource> kept = new ArrayList<>();
        for (DesiredResource r : target.plugins().resources().values()) {
            List<ExposedDevice> devices = r.devices().stream().filter(d -> record.mayHold(d.id())).toList();
            if (!devices.isEmpty()) kept.add(new DesiredResource(r.name(), r.kind(), devices));
        }
        return new TargetState(DesiredState.of(kept), target.devNodes(), target.dra());
    }
}
