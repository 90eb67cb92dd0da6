package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A kubelet call on the claims, worked through claim by claim in the kubelet's order, one file
 * operation or checkpoint write at a time, its outcome awaited before the next claim is taken: so
 * a claim sees the ones before it in the same call as prepared or not, exactly as they turned out.
 * The kubelet's answer goes out once the checkpoint holds every change the call made.
 */
sealed interface ClaimCall {

    String CLOSING = "the DRA driver is shutting down; ask again";

    long id();

    Awaiting awaiting();

    /** The answer when the driver stops before this call is done: a change not recorded yet is not told as done. */
    DriverAction closingAnswer();

    /** What the call waits for. */
    sealed interface Awaiting {}

    /** Nothing: the next claim can be taken. */
    record Ready() implements Awaiting {}

    /** The files of {@code claim}; {@code again} when it was prepared before (its files are written again, in case a reboot emptied the CDI directory). */
    record Write(PreparedClaim claim, boolean again) implements Awaiting {}

    /** The removal of {@code claim}'s files; {@code known} is what the book held for it. */
    record Removal(ClaimRef claim, Optional<PreparedClaim> known) implements Awaiting {}

    /** The checkpoint, holding every change the call made. */
    record Recording() implements Awaiting {}

    /**
     * NodePrepareResources.
     *
     * @param next    how many requests were taken
     * @param answers the answers so far, by claim UID, in request order
     * @param added   the claims this call prepared, in the book but not yet in the checkpoint
     */
    record Prepare(long id, List<ClaimRequest> requests, int next, Map<String, PrepareAnswer> answers, List<PreparedClaim> added,
                   Awaiting awaiting) implements ClaimCall {

        public Prepare {
            requests = List.copyOf(requests);
            answers = Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            added = List.copyOf(added);
            Objects.requireNonNull(awaiting, "awaiting");
        }

        static Prepare of(long id, List<ClaimRequest> requests) {
            return new Prepare(id, requests, 0, Map.of(), List.of(), new Ready());
        }

        @Override
        public DriverAction closingAnswer() {
            Map<String, PrepareAnswer> out = new LinkedHashMap<>();
            for (ClaimRequest r : requests) {
                PrepareAnswer a = answers.get(r.uid());
                boolean unrecorded = a instanceof PrepareAnswer.Prepared done && added.contains(done.claim());
                out.put(r.uid(), a != null && !unrecorded ? a : new PrepareAnswer.Failed(CLOSING));
            }
            return new DriverAction.AnswerPrepare(id, out);
        }
    }

    /**
     * NodeUnprepareResources.
     *
     * @param next    how many references were taken
     * @param answers the error of each claim so far (empty when it is unprepared), by UID, in request order
     * @param removed the claims this call took out of the book, still in the checkpoint
     */
    record Unprepare(long id, List<ClaimRef> refs, int next, Map<String, Optional<String>> answers, Map<String, PreparedClaim> removed,
                     Awaiting awaiting) implements ClaimCall {

        public Unprepare {
            refs = List.copyOf(refs);
            answers = Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            removed = Collections.unmodifiableMap(new LinkedHashMap<>(removed));
            Objects.requireNonNull(awaiting, "awaiting");
        }

        static Unprepare of(long id, List<ClaimRef> refs) {
            return new Unprepare(id, refs, 0, Map.of(), Map.of(), new Ready());
        }

        @Override
        public DriverAction closingAnswer() {
            Map<String, Optional<String>> out = new LinkedHashMap<>();
            for (ClaimRef r : refs) {
                Optional<String> a = answers.get(r.uid());
                boolean unrecorded = removed.containsKey(r.uid());
                out.put(r.uid(), a != null && (a.isPresent() || !unrecorded) ? a : Optional.of(CLOSING));
            }
            return new DriverAction.AnswerUnprepare(id, out);
        }
    }
}
