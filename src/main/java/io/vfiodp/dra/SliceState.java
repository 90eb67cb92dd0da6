package io.vfiodp.dra;

import io.vfiodp.dra.slices.SliceLayout;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the API should hold for this node's pool and how far publishing it has come.
 *
 * @param layout     the slices to publish; empty until the first node state arrives, since publishing
 *                   before it would delete the slices a previous run left (and a restart changes nothing)
 * @param wanted     a sync was asked for (a new layout, a registration, the resync period, a retry) and not sent yet
 * @param inFlight   a sync runs on the publisher's thread; its outcome comes back as an event
 * @param retryAt    when to sync again after a failure
 * @param failures   syncs failed in a row
 * @param generation the pool generation the API holds, as the last sync saw it
 * @param slices     how many slices the API holds, as the last successful sync left them
 * @param problem    why the last sync failed, until one succeeds: logged once, and the status says it
 * @param nodeUid    the Node's UID once a sync read it: the slices' owner
 */
record SliceState(Optional<List<List<SliceLayout.Entry>>> layout, boolean wanted, boolean inFlight, Optional<Long> retryAt, int failures,
                  long generation, int slices, Optional<String> problem, Optional<String> nodeUid) {

    static final SliceState INITIAL = new SliceState(Optional.empty(), false, false, Optional.empty(), 0, 0, 0, Optional.empty(),
            Optional.empty());

    SliceState {
        layout = layout.map(l -> List.copyOf(l.stream().map(List::copyOf).toList()));
        Objects.requireNonNull(retryAt, "retryAt");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(nodeUid, "nodeUid");
    }
}
