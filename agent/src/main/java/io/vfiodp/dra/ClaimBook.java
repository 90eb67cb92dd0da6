package io.vfiodp.dra;

import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.handover.HandoverClaims;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The prepared claims (the book) and the kubelet's calls on them, straight-line under one lock:
 * decide ({@link ClaimDecision}, on the devices offered now), write the claims' files, record the
 * book in the checkpoint, answer. Prepare and unprepare are idempotent, claim by claim: a claim
 * already prepared is answered from the book (its files written again, in case a reboot emptied the
 * CDI directory), never prepared a second time; unpreparing an unknown claim removes whatever files
 * it might have and succeeds. A failed file write is undone at once; a checkpoint that cannot be
 * written takes back every change of the call, so the kubelet is told a change only once the
 * checkpoint holds it.
 *
 * <p>While the checkpoint is {@link LostClaims lost}, a new claim is also refused a device a claim
 * the kubelet still has prepared may hold (or any, while nothing tells which), each reading of what
 * the kubelet has rebuilds the claims it can (never one the kubelet asked to unprepare: the reading
 * may be older than that answer), and every save says the book may be incomplete, until the book
 * holds them all again.
 *
 * <p>The devices offered come in through {@link #offer}, under the same lock: once it returns, no
 * prepare decides on the view before. What the book holds is published under the lock too, for
 * readers on any thread.
 */
final class ClaimBook implements AutoCloseable {

    static final String CLOSING = "the DRA driver is shutting down; ask again";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    /** What the book acts on: the claims' files, the checkpoint and the log. */
    interface Edges {

        /** Writes the CDI specs and metadata files of {@code claim}. */
        void write(PreparedClaim claim) throws IOException;

        /** Removes whatever files {@code claim} may have. */
        void remove(ClaimRef claim) throws IOException;

        /** Records {@code claims} as the prepared claims; {@code incomplete} says why they may not be all (the next start then counts the checkpoint as lost). */
        void save(List<PreparedClaim> claims, Optional<String> incomplete) throws IOException;

        void log(Level level, String message);

        static Edges of(ClaimFiles files, Checkpoint checkpoint) {
            return new Edges() {
                @Override
                public void write(PreparedClaim claim) throws IOException {
                    files.write(claim);
                }

                @Override
                public void remove(ClaimRef claim) throws IOException {
                    files.remove(claim.uid(), claim.namespace(), claim.name());
                }

                @Override
                public void save(List<PreparedClaim> claims, Optional<String> incomplete) throws IOException {
                    checkpoint.save(claims, incomplete);
                }

                @Override
                public void log(Level level, String message) {
                    // as an argument, so that a problem text holding "{}" is printed as it is
                    log.atLevel(level).log("{}", message);
                }
            };
        }
    }

    /** What the book holds, as readers on other threads see it. */
    private record Published(Set<String> uids, Set<String> names, HandoverClaims held) {}

    private final String driver;
    private final String pool;
    private final Path checkpoint;
    private final Edges edges;

    private final Object lock = new Object();
    // guarded by lock
    private final SortedMap<String, PreparedClaim> claims;
    private Optional<LostClaims> lost;
    private DriverView view = DriverView.EMPTY;
    private boolean closed;

    private volatile Published published;

    /**
     * @param claims     the claims the checkpoint recorded
     * @param lost       when the checkpoint was lost: then {@code claims} may not be all the kubelet has prepared
     * @param pool       this node's pool
     * @param checkpoint the checkpoint's file, as failures to record name it
     */
    ClaimBook(SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost, String driver, String pool, Path checkpoint, Edges edges) {
        this.claims = new TreeMap<>(claims);
        this.lost = lost;
        this.driver = driver;
        this.pool = pool;
        this.checkpoint = checkpoint;
        this.edges = edges;
        publish();
    }

    /** New claims are decided on {@code next} from now on; waits for a call in progress. */
    void offer(DriverView next) {
        synchronized (lock) {
            view = next;
        }
    }

    /** Prepares {@code requests}, in order: by claim UID, the answer, once the checkpoint holds what changed. */
    Map<String, PrepareAnswer> prepare(List<ClaimRequest> requests) {
        synchronized (lock) {
            Map<String, PrepareAnswer> answers = new LinkedHashMap<>();
            if (closed) {
                requests.forEach(r -> answers.put(r.uid(), new PrepareAnswer.Failed(CLOSING)));
                return answers;
            }
            ClaimDecision decision = new ClaimDecision(driver, pool, view);
            Map<String, PreparedClaim> added = new LinkedHashMap<>();
            for (ClaimRequest r : requests) {
                PreparedClaim known = claims.get(r.uid());
                if (known != null) {
                    Optional<String> problem = problem(() -> edges.write(known));
                    answers.put(r.uid(), problem.<PrepareAnswer>map(p -> new PrepareAnswer.Failed("claim " + known.describe()
                            + " is prepared, but writing its files failed: " + p)).orElse(new PrepareAnswer.Prepared(known)));
                    continue;
                }
                PrepareAnswer decided = notHeldByLostClaims(decision.prepare(r, claims));
                if (!(decided instanceof PrepareAnswer.Prepared fresh)) {
                    answers.put(r.uid(), decided);
                    continue;
                }
                PreparedClaim claim = fresh.claim();
                // held while its files are written, but told prepared to no one before it is recorded
                claims.put(claim.uid(), claim);
                holdAlso(claim);
                Optional<String> problem = problem(() -> edges.write(claim));
                if (problem.isEmpty()) {
                    added.put(claim.uid(), claim);
                    answers.put(claim.uid(), fresh);
                    edges.log(Level.INFO, "prepared claim " + claim.describe() + ": " + devices(claim));
                } else {
                    claims.remove(claim.uid());
                    undo(claim);
                    answers.put(claim.uid(), new PrepareAnswer.Failed("claim " + claim.describe() + ": writing its CDI spec and metadata files failed: "
                            + problem.get()));
                }
            }
            if (!added.isEmpty()) {
                save().ifPresent(problem -> {
                    for (PreparedClaim c : added.values()) {
                        claims.remove(c.uid());
                        undo(c);
                        answers.put(c.uid(), new PrepareAnswer.Failed("cannot record the prepared claim in " + checkpoint + ": " + problem));
                    }
                });
            }
            publish();
            return answers;
        }
    }

    /** Unprepares {@code refs}, in order: by claim UID, its error, empty when it is unprepared (and the checkpoint no longer holds it). */
    Map<String, Optional<String>> unprepare(List<ClaimRef> refs) {
        synchronized (lock) {
            Map<String, Optional<String>> answers = new LinkedHashMap<>();
            if (closed) {
                refs.forEach(r -> answers.put(r.uid(), Optional.of(CLOSING)));
                return answers;
            }
            // out of the book, still in the checkpoint (and still published as held) until it is saved
            Map<String, PreparedClaim> removed = new LinkedHashMap<>();
            for (ClaimRef r : refs) {
                Optional<PreparedClaim> known = Optional.ofNullable(claims.get(r.uid()));
                // the book's names, when it knows the claim: those its files were written under
                ClaimRef target = known.map(PreparedClaim::ref).orElse(r);
                // from now on, a PodResources reading may list it only because the kubelet has not had the answer yet
                lost = lost.map(l -> l.unpreparing(r.uid()));
                Optional<String> problem = problem(() -> edges.remove(target));
                if (problem.isPresent()) {
                    lost = lost.map(l -> l.unprepareFailed(r.uid()));
                    answers.put(r.uid(), Optional.of("claim " + target.describe() + ": removing its files failed: " + problem.get()));
                } else {
                    known.ifPresent(k -> {
                        claims.remove(k.uid());
                        removed.put(k.uid(), k);
                        edges.log(Level.INFO, "unprepared claim " + k.describe());
                    });
                    answers.put(r.uid(), Optional.empty());
                }
            }
            if (!removed.isEmpty()) {
                save().ifPresent(problem -> {
                    claims.putAll(removed);
                    for (String uid : removed.keySet()) {
                        lost = lost.map(l -> l.unprepareFailed(uid));
                        answers.put(uid, Optional.of("cannot record the unprepared claim in " + checkpoint + ": " + problem));
                    }
                });
            }
            publish();
            return answers;
        }
    }

    /**
     * While the checkpoint is lost: adds the claims of {@code read} (what the kubelet still has
     * prepared) the book lacks, decided on the view offered now, and records the book once it is
     * whole again.
     */
    void kubeletRead(ClaimRecovery.Reading read) {
        synchronized (lock) {
            if (lost.isEmpty() || closed) return;
            LostClaims.Rebuilt rebuilt = lost.get().rebuild(read, claims, new ClaimDecision(driver, pool, view));
            for (PreparedClaim c : rebuilt.claims()) {
                claims.put(c.uid(), c);
                edges.log(Level.INFO, "DRA: rebuilt claim " + c.describe() + " from the kubelet's PodResources and the API: " + devices(c));
            }
            // until the book is recorded whole, the loss stands, with nothing left that a claim may not take
            lost = Optional.of(rebuilt.still().orElse(new LostClaims(lost.get().reason(), Optional.of(Map.of()), "", lost.get().unprepared())));
            if (rebuilt.still().isEmpty()) {
                Optional<String> problem = problem(() -> edges.save(List.copyOf(claims.values()), Optional.empty()));
                if (problem.isEmpty()) {
                    edges.log(Level.INFO, "DRA: every claim the kubelet still has prepared is in " + checkpoint + " again (" + claims.size()
                            + " claim(s)); claims are prepared as before");
                    lost = Optional.empty();
                } else {
                    edges.log(Level.WARN, "DRA: the claims the kubelet still has are rebuilt, but " + checkpoint + " cannot be written: "
                            + problem.get() + "; it is tried again at the next pass");
                }
            }
            publish();
        }
    }

    /** Answers every later call with {@link #CLOSING}; waits for a call in progress. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
    }

    /**
     * The IDs of the devices prepared claims hold (and a call in progress may): what the device
     * plugins must not offer; while the checkpoint is lost, any device may be held. Any thread.
     */
    HandoverClaims held() {
        return published.held();
    }

    /** Whether claim {@code uid} is prepared: then the API need not be asked. Any thread. */
    boolean isPrepared(String uid) {
        return published.uids().contains(uid);
    }

    int size() {
        return published.uids().size();
    }

    /** Whether the book may lack claims the kubelet still has prepared (the checkpoint was lost). Any thread. */
    boolean lost() {
        return published.held() instanceof HandoverClaims.Unknown;
    }

    /** The claims in the book as {@code namespace/name}. Any thread. */
    Set<String> names() {
        return published.names();
    }

    /** The claims in the book by UID, as they are now. */
    SortedMap<String, PreparedClaim> claims() {
        synchronized (lock) {
            return new TreeMap<>(claims);
        }
    }

    /**
     * Called with the lock held, and not while an unprepare runs: a claim it took out of the book
     * stays published as held until the checkpoint no longer holds it.
     */
    private void publish() {
        Set<String> names = new HashSet<>();
        Set<String> held = new HashSet<>();
        for (PreparedClaim c : claims.values()) {
            names.add(c.namespace() + "/" + c.name());
            c.devices().forEach(d -> held.add(d.deviceId()));
        }
        published = new Published(Set.copyOf(claims.keySet()), Set.copyOf(names), held(held));
    }

    /** Publishes {@code claim}'s devices as held, and nothing else of it. */
    private void holdAlso(PreparedClaim claim) {
        Set<String> held = new HashSet<>(published.held().known());
        claim.devices().forEach(d -> held.add(d.deviceId()));
        published = new Published(published.uids(), published.names(), held(held));
    }

    /** {@code devices} as held, and, while the checkpoint is lost, any other device as maybe held. */
    private HandoverClaims held(Set<String> devices) {
        return lost.<HandoverClaims>map(l -> new HandoverClaims.Unknown(devices, l.reason())).orElse(new HandoverClaims.Known(devices));
    }

    /** A file operation or a save. */
    private interface Io {
        void run() throws IOException;
    }

    /** Runs {@code io}: why it failed, empty when it did not. */
    private static Optional<String> problem(Io io) {
        try {
            io.run();
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    /** Takes back the files of a prepare that failed: only a failure to remove them is of interest. */
    private void undo(PreparedClaim claim) {
        problem(() -> edges.remove(claim.ref())).ifPresent(problem -> edges.log(Level.WARN, "claim " + claim.describe() + ": removing its files failed: " + problem));
    }

    private Optional<String> save() {
        return problem(() -> edges.save(List.copyOf(claims.values()), incomplete()));
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

    private static String devices(PreparedClaim c) {
        return String.join(", ", c.devices().stream().map(d -> d.device() + " (" + d.deviceId() + ")").toList());
    }
}
