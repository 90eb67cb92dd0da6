package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.SliceState.Taints;
import io.vfiodp.dra.slices.HealthTaint;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher.Outcome;
import io.vfiodp.dra.slices.SlicePublisher.Probe;
import io.vfiodp.triggers.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The slices' part of a step, on a working copy. Level-triggered: a new layout, a registration
 * (the kubelet deletes a node's slices when it starts, and a driver's when it was gone a while),
 * the resync period and a retry after a failure all just ask for a sync; one sync runs at a time,
 * and one asked for meanwhile follows it. Failures are retried on the backoff, a problem logged
 * when it is new and once more when it is over.
 *
 * <p>Unhealthy devices stay in the slices tainted only once the API server is known to keep
 * taints: before a sync that would publish one, a dry run asks it (again at every resync while it
 * drops them, to notice the feature coming on); until it answers, and where it drops them, they
 * are left out. A write that comes back without its taints says the same.
 */
final class SliceRules {

    private final String pool;
    private final String driver;
    private final Backoff backoff;
    private final long now;
    private final List<DriverAction> actions;
    private SliceState s;

    SliceRules(SliceState slices, String pool, String driver, Backoff backoff, long now, List<DriverAction> actions) {
        this.s = slices;
        this.pool = pool;
        this.driver = driver;
        this.backoff = backoff;
        this.now = now;
        this.actions = actions;
    }

    SliceState result() {
        return s;
    }

    /** Publish {@code entries} from now on; entries equal to those published ask for nothing. */
    void desire(List<SliceLayout.Entry> entries) {
        if (s.entries().equals(Optional.of(entries))) return;
        s = s.withEntries(entries).withWanted(true);
        if (s.taintsInDoubt()) s = s.withProbeWanted(true);
    }

    /** Compare with the API soon. */
    void requestSync() {
        s = s.withWanted(true);
    }

    /** The resync period: compare with the API, and ask again about taints where that decides what is published. */
    void resync() {
        s = s.withWanted(true);
        if (s.taintsInDoubt()) s = s.withProbeWanted(true);
    }

    void probed(Probe probe) {
        s = s.withInFlight(false);
        switch (probe) {
            case Probe.Kept k -> {
                if (s.taints() == Taints.DROPPED) {
                    actions.add(Log.info("DRA: the API server keeps device taints again: unhealthy devices go back into the ResourceSlices of pool "
                            + pool + ", tainted " + HealthTaint.key(driver) + ":" + HealthTaint.NO_SCHEDULE));
                }
                s = s.withTaints(Taints.KEPT, Optional.empty()).withWanted(true);
            }
            case Probe.Dropped d -> {
                if (s.taints() != Taints.DROPPED) actions.add(Log.warn(dropped()));
                s = s.withTaints(Taints.DROPPED, Optional.empty()).withWanted(true);
            }
            case Probe.Failed f -> {
                if (!s.probeProblem().equals(Optional.of(f.problem()))) {
                    actions.add(Log.warn("DRA: " + f.problem() + "; unhealthy devices stay out of the ResourceSlices of pool " + pool
                            + " until it answers (asked again at the next resync)"));
                }
                s = s.withTaints(s.taints(), Optional.of(f.problem())).withWanted(true);
            }
        }
    }

    private String dropped() {
        return "DRA: the API server drops device taints (feature DRADeviceTaints is off): unhealthy devices leave the ResourceSlices of pool "
                + pool + " instead of staying in them tainted " + HealthTaint.key(driver) + ":" + HealthTaint.NO_SCHEDULE
                + "; asked again at every resync";
    }

    void synced(Outcome outcome) {
        Optional<String> nodeUid = outcome.nodeUid().or(s::nodeUid);
        switch (outcome) {
            case Outcome.Synced ok -> {
                if (ok.written()) {
                    actions.add(Log.info("DRA: published " + ok.devices() + " device(s) of pool " + pool + " in " + ok.slices()
                            + " ResourceSlice(s), generation " + ok.generation()));
                }
                if (s.problem().isPresent()) actions.add(Log.info("DRA: ResourceSlices of pool " + pool + " are written again"));
                s = s.synced(Optional.empty(), 0, ok.generation(), ok.slices(), Optional.empty(), nodeUid);
                if (ok.taintsDropped()) {
                    // published untainted meanwhile: what was unhealthy must leave at once
                    if (s.taints() != Taints.DROPPED) actions.add(Log.warn(dropped()));
                    s = s.withTaints(Taints.DROPPED, Optional.empty()).withWanted(true);
                }
            }
            case Outcome.Failed f -> {
                int failures = s.failures() + 1;
                Duration delay = backoff.delayAfter(failures);
                if (!s.problem().equals(Optional.of(f.problem()))) {
                    actions.add(Log.warn("DRA: " + f.problem() + "; retrying (backoff up to " + backoff.max().toMillis() + " ms)"));
                }
                s = s.synced(Optional.of(now + delay.toNanos()), failures, f.generation(), s.slices(), Optional.of(f.problem()), nodeUid);
            }
        }
    }

    /** Sends a probe or a sync when one is asked for or a retry is due and none runs; the time of the retry, if one waits. */
    Optional<Long> converge() {
        Optional<Long> retryAt = s.retryAt();
        // Times are nanoTime-like: compared by difference, so that a wrap does not matter.
        if (retryAt.isPresent() && now - retryAt.get() >= 0) {
            s = s.withWanted(true).withRetryAt(Optional.empty());
        }
        if (s.wanted() && !s.inFlight() && s.entries().isPresent()) {
            if (s.probeWanted() && s.taintsInDoubt()) {
                HealthTaint taint = s.entries().get().stream().filter(SliceLayout.Entry::tainted).findFirst().orElseThrow().taints().getFirst();
                actions.add(new ProbeTaints(taint));
                s = s.withProbeWanted(false).withInFlight(true);
                return Optional.empty();
            }
            // this sync is also the retry: its outcome decides whether another is needed
            actions.add(new SyncSlices(s.layout().orElseThrow(), s.generation(), s.nodeUid()));
            s = s.withProbeWanted(false).withWanted(false).withInFlight(true).withRetryAt(Optional.empty());
            return Optional.empty();
        }
        return s.inFlight() ? Optional.empty() : s.retryAt();
    }
}
