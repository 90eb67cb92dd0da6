package io.vfiodp.dra;

import io.vfiodp.dra.ClaimCall.Awaiting;
import io.vfiodp.dra.ClaimCall.Prepare;
import io.vfiodp.dra.ClaimCall.Ready;
import io.vfiodp.dra.ClaimCall.Recording;
import io.vfiodp.dra.ClaimCall.Removal;
import io.vfiodp.dra.ClaimCall.Unprepare;
import io.vfiodp.dra.ClaimCall.Write;
import io.vfiodp.dra.DriverAction.AnswerPrepare;
import io.vfiodp.dra.DriverAction.AnswerUnprepare;
import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.DriverEvent.CheckpointSaved;
import io.vfiodp.dra.DriverEvent.FilesRemoved;
import io.vfiodp.dra.DriverEvent.FilesWritten;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.model.DriverView;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The claims' part of a step, on a working copy: the book of prepared claims and the kubelet's
 * calls on it. Prepare and unprepare are idempotent, claim by claim: a claim already prepared is
 * answered from the book (its files written again), never prepared a second time; a new claim is
 * decided by {@link ClaimDecision}; unpreparing an unknown claim removes whatever files it might
 * have and succeeds. A failed file write is undone at once; a checkpoint that cannot be written
 * takes back every change of the call, and the kubelet is answered only once the checkpoint holds
 * them. While the checkpoint is {@link LostClaims lost}, a new claim is also refused a device a
 * claim the kubelet still has prepared may hold (or any, while nothing tells which), each reading
 * of what the kubelet has rebuilds the claims it can (never one the kubelet asked to unprepare: the
 * reading may be older than that answer), and every save says the book may be incomplete, until
 * the book holds them all again.
 */
final class ClaimPass {

    /** The call id of the save that records a book made whole again. */
    static final long REBUILT = 0;

    private final String driver;
    private final String pool;
    private final Path checkpoint;
    private final List<DriverAction> actions;
    private final SortedMap<String, PreparedClaim> claims;
    private final Deque<ClaimCall> calls;
    private Optional<LostClaims> lost;
    private DriverEvent.KubeletClaimsRead read;

    /**
     * @param pool       this node's pool
     * @param checkpoint the checkpoint's file, as failures to record name it
     */
    ClaimPass(SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost, List<ClaimCall> calls, String driver, String pool,
              Path checkpoint, List<DriverAction> actions) {
        this.claims = new TreeMap<>(claims);
        this.lost = lost;
        this.calls = new ArrayDeque<>(calls);
        this.driver = driver;
        this.pool = pool;
        this.checkpoint = checkpoint;
        this.actions = actions;
    }

    SortedMap<String, PreparedClaim> claims() {
        return claims;
    }

    List<ClaimCall> calls() {
        return List.copyOf(calls);
    }

    Optional<LostClaims> lost() {
        return lost;
    }

    /** What the kubelet still has prepared, taken in when the claims converge (on the view of this step). */
    void kubeletRead(DriverEvent.KubeletClaimsRead e) {
        read = e;
    }

    void requested(ClaimCall call) {
        calls.addLast(call);
    }

    void filesWritten(FilesWritten e) {
        if (!(calls.peekFirst() instanceof Prepare p) || p.id() != e.call() || !(p.awaiting() instanceof Write w)
                || !w.claim().uid().equals(e.uid())) {
            return;
        }
        PreparedClaim claim = w.claim();
        Map<String, PrepareAnswer> answers = new LinkedHashMap<>(p.answers());
        List<PreparedClaim> added = new ArrayList<>(p.added());
        if (w.again()) {
            answers.put(claim.uid(), e.problem().<PrepareAnswer>map(problem -> new PrepareAnswer.Failed("claim " + claim.describe()
                    + " is prepared, but writing its files failed: " + problem)).orElse(new PrepareAnswer.Prepared(claim)));
        } else if (e.problem().isEmpty()) {
            claims.put(claim.uid(), claim);
            added.add(claim);
            answers.put(claim.uid(), new PrepareAnswer.Prepared(claim));
            actions.add(Log.info("prepared claim " + claim.describe() + ": "
                    + String.join(", ", claim.devices().stream().map(d -> d.device() + " (" + d.deviceId() + ")").toList())));
        } else {
            actions.add(new RemoveFiles(p.id(), ref(claim), true));
            answers.put(claim.uid(), new PrepareAnswer.Failed("claim " + claim.describe() + ": writing its CDI spec and metadata files failed: "
                    + e.problem().get()));
        }
        replaceFirst(new Prepare(p.id(), p.requests(), p.next(), answers, added, new Ready()));
    }

    void filesRemoved(FilesRemoved e) {
        ClaimRef c = e.claim();
        if (e.undo()) {
            e.problem().ifPresent(problem -> actions.add(Log.warn("claim " + c.namespace() + "/" + c.name() + " (UID " + c.uid()
                    + "): removing its files failed: " + problem)));
            return;
        }
        if (!(calls.peekFirst() instanceof Unprepare u) || u.id() != e.call() || !(u.awaiting() instanceof Removal r)
                || !r.claim().equals(c)) {
            return;
        }
        Map<String, Optional<String>> answers = new LinkedHashMap<>(u.answers());
        Map<String, PreparedClaim> removed = new LinkedHashMap<>(u.removed());
        if (e.problem().isPresent()) {
            lost = lost.map(l -> l.unprepareFailed(c.uid()));
            answers.put(c.uid(), Optional.of("claim " + c.namespace() + "/" + c.name() + " (UID " + c.uid() + "): removing its files failed: "
                    + e.problem().get()));
        } else {
            r.known().ifPresent(known -> {
                claims.remove(known.uid());
                removed.put(known.uid(), known);
                actions.add(Log.info("unprepared claim " + known.describe()));
            });
            answers.put(c.uid(), Optional.empty());
        }
        replaceFirst(new Unprepare(u.id(), u.refs(), u.next(), answers, removed, new Ready()));
    }

    void checkpointSaved(CheckpointSaved e) {
        if (e.call() == REBUILT) {
            if (e.problem().isPresent()) {
                actions.add(Log.warn("DRA: the claims the kubelet still has are rebuilt, but " + checkpoint + " cannot be written: "
                        + e.problem().get() + "; it is tried again at the next pass"));
            } else if (lost.isPresent()) {
                actions.add(Log.info("DRA: every claim the kubelet still has prepared is in " + checkpoint + " again (" + claims.size()
                        + " claim(s)); claims are prepared as before"));
                lost = Optional.empty();
            }
            return;
        }
        ClaimCall first = calls.peekFirst();
        if (first == null || first.id() != e.call()) return;
        switch (first) {
            case Prepare p when p.awaiting() instanceof Recording -> {
                Map<String, PrepareAnswer> answers = new LinkedHashMap<>(p.answers());
                e.problem().ifPresent(problem -> {
                    String reason = "cannot record the prepared claim in " + checkpoint + ": " + problem;
                    for (PreparedClaim c : p.added()) {
                        claims.remove(c.uid());
                        actions.add(new RemoveFiles(p.id(), ref(c), true));
                        answers.put(c.uid(), new PrepareAnswer.Failed(reason));
                    }
                });
                actions.add(new AnswerPrepare(p.id(), answers));
                calls.removeFirst();
            }
            case Unprepare u when u.awaiting() instanceof Recording -> {
                Map<String, Optional<String>> answers = new LinkedHashMap<>(u.answers());
                e.problem().ifPresent(problem -> {
                    claims.putAll(u.removed());
                    for (String uid : u.removed().keySet()) {
                        lost = lost.map(l -> l.unprepareFailed(uid));
                        answers.put(uid, Optional.of("cannot record the unprepared claim in " + checkpoint + ": " + problem));
                    }
                });
                actions.add(new AnswerUnprepare(u.id(), answers));
                calls.removeFirst();
            }
            default -> {
                // not waiting for the checkpoint: a stale outcome
            }
        }
    }

    /** Works on the calls in order until one waits for an outcome or none is left; new claims are checked against {@code view}. */
    void converge(DriverView view) {
        ClaimDecision decision = new ClaimDecision(driver, pool, view);
        if (read != null) rebuild(read, decision);
        read = null;
        while (calls.peekFirst() instanceof ClaimCall first && first.awaiting() instanceof Ready) {
            switch (first) {
                case Prepare p -> advance(p, decision);
                case Unprepare u -> advance(u);
            }
        }
    }

    private void advance(Prepare p, ClaimDecision decision) {
        Map<String, PrepareAnswer> answers = new LinkedHashMap<>(p.answers());
        int next = p.next();
        while (next < p.requests().size()) {
            ClaimRequest r = p.requests().get(next++);
            PreparedClaim known = claims.get(r.uid());
            Optional<Awaiting> write = known != null ? Optional.of(new Write(known, true))
                    : switch (notHeldByLostClaims(decision.prepare(r, claims))) {
                        case PrepareAnswer.Prepared fresh -> Optional.of(new Write(fresh.claim(), false));
                        case PrepareAnswer.Failed refused -> {
                            answers.put(r.uid(), refused);
                            yield Optional.empty();
                        }
                    };
            if (write.isPresent()) {
                actions.add(new WriteFiles(p.id(), ((Write) write.get()).claim()));
                replaceFirst(new Prepare(p.id(), p.requests(), next, answers, p.added(), write.get()));
                return;
            }
        }
        if (!p.added().isEmpty()) {
            actions.add(new SaveCheckpoint(p.id(), List.copyOf(claims.values()), incomplete()));
            replaceFirst(new Prepare(p.id(), p.requests(), next, answers, p.added(), new Recording()));
            return;
        }
        actions.add(new AnswerPrepare(p.id(), answers));
        calls.removeFirst();
    }

    private void advance(Unprepare u) {
        if (u.next() < u.refs().size()) {
            ClaimRef r = u.refs().get(u.next());
            Optional<PreparedClaim> known = Optional.ofNullable(claims.get(r.uid()));
            // the book's names, when it knows the claim: those its files were written under
            ClaimRef target = known.map(ClaimPass::ref).orElse(r);
            // from now on, a PodResources reading may list it only because the kubelet has not had the answer yet
            lost = lost.map(l -> l.unpreparing(r.uid()));
            actions.add(new RemoveFiles(u.id(), target, false));
            replaceFirst(new Unprepare(u.id(), u.refs(), u.next() + 1, u.answers(), u.removed(), new Removal(target, known)));
        } else if (!u.removed().isEmpty()) {
            actions.add(new SaveCheckpoint(u.id(), List.copyOf(claims.values()), incomplete()));
            replaceFirst(new Unprepare(u.id(), u.refs(), u.next(), u.answers(), u.removed(), new Recording()));
        } else {
            actions.add(new AnswerUnprepare(u.id(), u.answers()));
            calls.removeFirst();
        }
    }

    /** Adds the claims of {@code read} the book lacks, and records the book once it is whole again and no call is under way. */
    private void rebuild(DriverEvent.KubeletClaimsRead read, ClaimDecision decision) {
        if (lost.isEmpty()) return;
        LostClaims.Rebuilt rebuilt = lost.get().rebuild(read, claims, decision);
        for (PreparedClaim c : rebuilt.claims()) {
            claims.put(c.uid(), c);
            actions.add(Log.info("DRA: rebuilt claim " + c.describe() + " from the kubelet's PodResources and the API: "
                    + String.join(", ", c.devices().stream().map(d -> d.device() + " (" + d.deviceId() + ")").toList())));
        }
        // until the book is recorded whole, the loss stands, with nothing left that a claim may not take
        lost = Optional.of(rebuilt.still().orElse(new LostClaims(lost.get().reason(), Optional.of(Map.of()), "", lost.get().unprepared())));
        if (rebuilt.still().isEmpty() && calls.isEmpty()) actions.add(new SaveCheckpoint(REBUILT, List.copyOf(claims.values())));
    }

    /** {@code answer}, unless the claim may take a device a claim whose record was lost holds. */
    private PrepareAnswer notHeldByLostClaims(PrepareAnswer answer) {
        if (lost.isEmpty() || !(answer instanceof PrepareAnswer.Prepared p)) return answer;
        for (PreparedDevice d : p.claim().devices()) {
            Optional<String> conflict = lost.get().conflict(p.claim().namespace() + "/" + p.claim().name(), d.device());
            if (conflict.isPresent()) return new PrepareAnswer.Failed("claim " + p.claim().describe() + ": " + conflict.get());
        }
        return answer;
    }

    /** While the book may lack claims the kubelet has, what the checkpoint says of itself, so that the next start knows. */
    private Optional<String> incomplete() {
        String later = " (at a later save, the claims the kubelet still has were not all rebuilt yet)";
        return lost.map(l -> l.reason().endsWith(later) ? l.reason() : l.reason() + later);
    }

    /** Answers every call still open: the driver stops. */
    void close() {
        calls.forEach(call -> actions.add(call.closingAnswer()));
        calls.clear();
    }

    private void replaceFirst(ClaimCall call) {
        calls.removeFirst();
        calls.addFirst(call);
    }

    private static ClaimRef ref(PreparedClaim c) {
        return new ClaimRef(c.namespace(), c.uid(), c.name());
    }
}
