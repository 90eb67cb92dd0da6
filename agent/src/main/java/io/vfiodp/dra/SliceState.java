package io.vfiodp.dra;

import io.vfiodp.dra.slices.SliceLayout;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the API should hold for this node's pool and how far publishing it has come.
 *
 * @param entries      every device of the pool, the unhealthy ones tainted; empty until the first node state arrives, since
 *                     publishing before it would delete the slices a previous run left (and a restart changes nothing)
 * @param taints       whether the API server keeps device taints, as far as the driver knows
 * @param probeWanted  a dry run is to ask the API server whether it keeps taints, before the next sync
 * @param probeProblem why the last such question got no answer, until one does: logged once
 * @param wanted       a sync was asked for (a new layout, a registration, the resync period, a retry) and not sent yet
 * @param inFlight     a sync or a probe runs on the publisher's thread; its outcome comes back as an event
 * @param retryAt      when to sync again after a failure
 * @param failures     syncs failed in a row
 * @param generation   the pool generation the API holds, as the last sync saw it
 * @param slices       how many slices the API holds, as the last successful sync left them
 * @param problem      why the last sync failed, until one succeeds: logged once, and the status says it
 * @param nodeUid      the Node's UID once a sync read it: the slices' owner
 */
record SliceState(Optional<List<SliceLayout.Entry>> entries, Taints taints, boolean probeWanted, Optional<String> probeProblem, boolean wanted,
                  boolean inFlight, Optional<Long> retryAt, int failures, long generation, int slices, Optional<String> problem,
                  Optional<String> nodeUid) {

    /** Whether the API server keeps device taints: not known before the first answer. */
    enum Taints { UNKNOWN, KEPT, DROPPED }

    static final SliceState INITIAL = new SliceState(Optional.empty(), Taints.UNKNOWN, false, Optional.empty(), false, false, Optional.empty(), 0,
            0, 0, Optional.empty(), Optional.empty());

    SliceState {
        entries = entries.map(List::copyOf);
        Objects.requireNonNull(taints, "taints");
        Objects.requireNonNull(probeProblem, "probeProblem");
        Objects.requireNonNull(retryAt, "retryAt");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(nodeUid, "nodeUid");
    }

    /** The slices to publish: every entry where taints are kept, else the untainted ones only (unknown counts as dropped). */
    Optional<List<List<SliceLayout.Entry>>> layout() {
        return entries.map(e -> SliceLayout.slices(e, taints == Taints.KEPT));
    }

    /** Whether what is published depends on the answer: some device carries a taint and the API server's way with them is not known to keep them. */
    boolean taintsInDoubt() {
        return taints != Taints.KEPT && entries.isPresent() && SliceLayout.anyTainted(entries.get());
    }

    SliceState withEntries(List<SliceLayout.Entry> e) {
        return new SliceState(Optional.of(e), taints, probeWanted, probeProblem, wanted, inFlight, retryAt, failures, generation, slices, problem,
                nodeUid);
    }

    SliceState withTaints(Taints t, Optional<String> why) {
        return new SliceState(entries, t, probeWanted, why, wanted, inFlight, retryAt, failures, generation, slices, problem, nodeUid);
    }

    SliceState withProbeWanted(boolean p) {
        return new SliceState(entries, taints, p, probeProblem, wanted, inFlight, retryAt, failures, generation, slices, problem, nodeUid);
    }

    SliceState withWanted(boolean w) {
        return new SliceState(entries, taints, probeWanted, probeProblem, w, inFlight, retryAt, failures, generation, slices, problem, nodeUid);
    }

    SliceState withInFlight(boolean f) {
        return new SliceState(entries, taints, probeWanted, probeProblem, wanted, f, retryAt, failures, generation, slices, problem, nodeUid);
    }

    SliceState withRetryAt(Optional<Long> at) {
        return new SliceState(entries, taints, probeWanted, probeProblem, wanted, inFlight, at, failures, generation, slices, problem, nodeUid);
    }

    /** After a sync's outcome: nothing in flight, and what the API holds. */
    SliceState synced(Optional<Long> retry, int fails, long gen, int count, Optional<String> why, Optional<String> uid) {
        return new SliceState(entries, taints, probeWanted, probeProblem, wanted, false, retry, fails, gen, count, why, uid);
    }
}
