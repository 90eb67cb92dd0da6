package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher.Outcome;
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
 */
final class SlicePass {

    private final String pool;
    private final Backoff backoff;
    private final long now;
    private final List<DriverAction> actions;
    private SliceState s;

    SlicePass(SliceState slices, String pool, Backoff backoff, long now, List<DriverAction> actions) {
        this.s = slices;
        this.pool = pool;
        this.backoff = backoff;
        this.now = now;
        this.actions = actions;
    }

    SliceState result() {
        return s;
    }

    /** Publish {@code layout} from now on; a layout equal to the one published asks for nothing. */
    void desire(List<List<SliceLayout.Entry>> layout) {
        if (s.layout().equals(Optional.of(layout))) return;
        s = new SliceState(Optional.of(layout), true, s.inFlight(), s.retryAt(), s.failures(), s.generation(), s.slices(), s.problem(),
                s.nodeUid());
    }

    /** Compare with the API soon. */
    void requestSync() {
        s = new SliceState(s.layout(), true, s.inFlight(), s.retryAt(), s.failures(), s.generation(), s.slices(), s.problem(), s.nodeUid());
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
                s = new SliceState(s.layout(), s.wanted(), false, Optional.empty(), 0, ok.generation(), ok.slices(), Optional.empty(), nodeUid);
            }
            case Outcome.Failed f -> {
                int failures = s.failures() + 1;
                Duration delay = backoff.delayAfter(failures);
                if (!s.problem().equals(Optional.of(f.problem()))) {
                    actions.add(Log.warn("DRA: " + f.problem() + "; retrying (backoff up to " + backoff.max().toMillis() + " ms)"));
                }
                s = new SliceState(s.layout(), s.wanted(), false, Optional.of(now + delay.toNanos()), failures, f.generation(), s.slices(),
                        Optional.of(f.problem()), nodeUid);
            }
        }
    }

    /** Sends a sync when one is asked for or a retry is due and none runs; the time of the retry, if one waits. */
    Optional<Long> converge() {
        boolean wanted = s.wanted();
        Optional<Long> retryAt = s.retryAt();
        // Times are nanoTime-like: compared by difference, so that a wrap does not matter.
        if (retryAt.isPresent() && now - retryAt.get() >= 0) {
            wanted = true;
            retryAt = Optional.empty();
        }
        if (wanted && !s.inFlight() && s.layout().isPresent()) {
            // this sync is also the retry: its outcome decides whether another is needed
            actions.add(new SyncSlices(s.layout().get(), s.generation(), s.nodeUid()));
            s = new SliceState(s.layout(), false, true, Optional.empty(), s.failures(), s.generation(), s.slices(), s.problem(), s.nodeUid());
            return Optional.empty();
        }
        s = new SliceState(s.layout(), wanted, s.inFlight(), retryAt, s.failures(), s.generation(), s.slices(), s.problem(), s.nodeUid());
        return s.inFlight() ? Optional.empty() : retryAt;
    }
}
