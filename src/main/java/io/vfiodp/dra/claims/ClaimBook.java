package io.vfiodp.dra.claims;

import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.VfioPaths;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The prepared claims and their files, kept consistent with the checkpoint. Prepare and unprepare
 * are idempotent, claim by claim: a claim already prepared is answered from the book (its files
 * written again, in case a reboot emptied {@code /var/run/cdi}), never prepared a second time; a
 * device already held by another prepared claim is refused; unpreparing an unknown claim removes
 * whatever files it might have and succeeds. Confined to one thread (the driver's).
 */
public final class ClaimBook {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final Checkpoint checkpoint;
    private final ClaimFiles files;
    private final String driver;
    private final String pool;
    private final SortedMap<String, PreparedClaim> claims;

    private ClaimBook(Checkpoint checkpoint, ClaimFiles files, String driver, String pool, SortedMap<String, PreparedClaim> claims) {
        this.checkpoint = checkpoint;
        this.files = files;
        this.driver = driver;
        this.pool = pool;
        this.claims = claims;
    }

    /** Opens the book the checkpoint recorded; fails, naming the file, when it is unreadable. */
    public static ClaimBook open(Checkpoint checkpoint, ClaimFiles files, String driver, String pool) throws IOException {
        return new ClaimBook(checkpoint, files, driver, pool, checkpoint.load());
    }

    /** A claim the kubelet named: {@code fetched} empty when the claim is prepared already and the API was not asked. */
    public record Request(String namespace, String uid, String name, Optional<ClaimSource.Fetched> fetched) {
        public Request {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(fetched, "fetched");
        }
    }

    public sealed interface Answer {}

    public record Prepared(PreparedClaim claim) implements Answer {}

    public record Failed(String reason) implements Answer {}

    public boolean isPrepared(String uid) {
        return claims.containsKey(uid);
    }

    public SortedMap<String, PreparedClaim> claims() {
        return Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    }

    /** Answers every request, by claim UID; the checkpoint holds the new claims before any answer goes out. */
    public Map<String, Answer> prepare(List<Request> requests, DriverView view) {
        Map<String, Answer> answers = new LinkedHashMap<>();
        List<PreparedClaim> added = new ArrayList<>();
        for (Request r : requests) {
            PreparedClaim known = claims.get(r.uid());
            if (known != null) {
                answers.put(r.uid(), rewrite(known));
                continue;
            }
            Answer a = prepareNew(r, view);
            if (a instanceof Prepared p) {
                claims.put(r.uid(), p.claim());
                added.add(p.claim());
            }
            answers.put(r.uid(), a);
        }
        if (!added.isEmpty()) {
            try {
                checkpoint.save(claims.values());
            } catch (IOException e) {
                String reason = "cannot record the prepared claim in " + checkpoint.file() + ": " + e.getMessage();
                for (PreparedClaim c : added) {
                    claims.remove(c.uid());
                    removeQuietly(c.uid(), c.namespace(), c.name());
                    answers.put(c.uid(), new Failed(reason));
                }
            }
        }
        return answers;
    }

    private Answer rewrite(PreparedClaim known) {
        try {
            files.write(known);
            return new Prepared(known);
        } catch (IOException e) {
            return new Failed("claim " + known.describe() + " is prepared, but writing its files failed: " + e.getMessage());
        }
    }

    private Answer prepareNew(Request r, DriverView view) {
        if (r.fetched().isEmpty()) {
            return new Failed("claim " + r.namespace() + "/" + r.name() + " (UID " + r.uid() + ") was unprepared while being prepared; ask again");
        }
        ClaimCheck.Outcome outcome = switch (r.fetched().get()) {
            case ClaimSource.Failed f -> new ClaimCheck.Refused(f.reason());
            case ClaimSource.Found f -> ClaimCheck.check(f.claim(), r.uid(), driver, pool, view);
        };
        if (outcome instanceof ClaimCheck.Refused(String reason)) return new Failed(reason);
        ClaimCheck.AllocatedClaim allocated = ((ClaimCheck.Accepted) outcome).claim();
        List<PreparedDevice> devices = new ArrayList<>();
        for (ClaimCheck.Allocated a : allocated.devices()) {
            Optional<PreparedClaim> holder = holderOf(a.device().name());
            if (holder.isPresent()) {
                return new Failed("ResourceClaim " + allocated.namespace() + "/" + allocated.name() + ": device " + a.device().name()
                        + " (" + a.device().device().id() + ") is already prepared for claim " + holder.get().describe());
            }
            devices.add(new PreparedDevice(a.request(), pool, a.device().name(), a.device().device().id(),
                    VfioPaths.of(List.of(a.device().device()), view.devNodes()), a.device().attributes()));
        }
        PreparedClaim claim = new PreparedClaim(r.uid(), allocated.namespace(), allocated.name(), allocated.podClaimName(), devices);
        try {
            files.write(claim);
        } catch (IOException e) {
            removeQuietly(claim.uid(), claim.namespace(), claim.name());
            return new Failed("claim " + claim.describe() + ": writing its CDI spec and metadata files failed: " + e.getMessage());
        }
        log.info("prepared claim {}: {}", claim.describe(), String.join(", ", devices.stream().map(d -> d.device() + " (" + d.deviceId() + ")").toList()));
        return new Prepared(claim);
    }

    private Optional<PreparedClaim> holderOf(String device) {
        return claims.values().stream().filter(c -> c.devices().stream().anyMatch(d -> d.device().equals(device))).findFirst();
    }

    /** A claim to unprepare, as the kubelet names it. */
    public record Ref(String namespace, String uid, String name) {}

    /** Undoes each claim; by UID an empty error when done (also for claims never prepared). */
    public Map<String, Optional<String>> unprepare(List<Ref> refs) {
        Map<String, Optional<String>> answers = new LinkedHashMap<>();
        Map<String, PreparedClaim> removed = new LinkedHashMap<>();
        for (Ref r : refs) {
            PreparedClaim known = claims.get(r.uid());
            String ns = known != null ? known.namespace() : r.namespace();
            String name = known != null ? known.name() : r.name();
            try {
                files.remove(r.uid(), ns, name);
            } catch (IOException e) {
                answers.put(r.uid(), Optional.of("claim " + ns + "/" + name + " (UID " + r.uid() + "): removing its files failed: " + e.getMessage()));
                continue;
            }
            if (known != null) {
                claims.remove(r.uid());
                removed.put(r.uid(), known);
                log.info("unprepared claim {}", known.describe());
            }
            answers.put(r.uid(), Optional.empty());
        }
        if (!removed.isEmpty()) {
            try {
                checkpoint.save(claims.values());
            } catch (IOException e) {
                claims.putAll(removed);
                for (String uid : removed.keySet()) {
                    answers.put(uid, Optional.of("cannot record the unprepared claim in " + checkpoint.file() + ": " + e.getMessage()));
                }
            }
        }
        return answers;
    }

    private void removeQuietly(String uid, String namespace, String name) {
        try {
            files.remove(uid, namespace, name);
        } catch (IOException e) {
            log.warn("claim {}/{} (UID {}): removing its files failed: {}", namespace, name, uid, e.getMessage());
        }
    }
}
