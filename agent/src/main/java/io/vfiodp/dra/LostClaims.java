package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The prepared claims' record (the checkpoint) was lost, and the book does not hold every claim
 * the kubelet may still have prepared. Until it does, PodResources says which devices those
 * claims hold; while it cannot be read, every device may be held.
 *
 * @param reason       what happened to the checkpoint, naming it
 * @param unrecovered  by claim {@code namespace/name}, the names of the devices of this pool a claim holds that the kubelet still has
 *                     prepared (PodResources) and the book lacks; empty until PodResources has been read
 * @param podResources why {@code unrecovered} is not known, while it is empty
 * @param unprepared   the UIDs of the claims the kubelet asked to unprepare since the loss, but for those whose unprepare failed: a
 *                     reading of PodResources taken before the kubelet had the answer still lists such a claim, so it is never
 *                     rebuilt (its devices stay held by name until a reading no longer lists it); prepared again, it goes through
 *                     the book like any claim
 */
record LostClaims(String reason, Optional<Map<String, Set<String>>> unrecovered, String podResources, Set<String> unprepared) {

    LostClaims {
        Objects.requireNonNull(reason, "reason");
        unrecovered = unrecovered.map(m -> {
            Map<String, Set<String>> copy = new TreeMap<>();
            m.forEach((claim, devices) -> copy.put(claim, Set.copyOf(new TreeSet<>(devices))));
            return Map.copyOf(copy);
        });
        Objects.requireNonNull(podResources, "podResources");
        unprepared = Set.copyOf(unprepared);
    }

    static LostClaims at(String reason) {
        return new LostClaims(reason, Optional.empty(), "it was not read yet", Set.of());
    }

    /** As this, with claim {@code uid} being unprepared. */
    LostClaims unpreparing(String uid) {
        Set<String> uids = new TreeSet<>(unprepared);
        uids.add(uid);
        return new LostClaims(reason, unrecovered, podResources, uids);
    }

    /** As this, the unprepare of claim {@code uid} having failed: the kubelet still has it. */
    LostClaims unprepareFailed(String uid) {
        Set<String> uids = new TreeSet<>(unprepared);
        uids.remove(uid);
        return new LostClaims(reason, unrecovered, podResources, uids);
    }

    /** What a {@link #rebuild} gave: the claims to add to the book, and what is still lost (empty once nothing is). */
    record Rebuilt(List<PreparedClaim> claims, Optional<LostClaims> still) {
        Rebuilt {
            claims = List.copyOf(claims);
        }
    }

    /**
     * Takes in what the kubelet still has prepared ({@code read}): each claim PodResources lists
     * with devices of this driver's pool that the book lacks and that is not {@code unprepared} is
     * rebuilt from the API's claim, decided as a prepare decides it, when it allocates exactly the
     * devices PodResources lists for it; the others stay unrecovered, their devices held by name.
     *
     * @param book     the claims prepared now, by UID
     * @param decision how a prepare decides, on the devices offered now
     */
    Rebuilt rebuild(ClaimRecovery.Reading read, Map<String, PreparedClaim> book, ClaimDecision decision) {
        if (!(read.reading() instanceof PodResourcesReading.Listed listed)) {
            String why = read.reading() instanceof PodResourcesReading.Unreadable u ? u.reason() : "it was not read";
            return new Rebuilt(List.of(), Optional.of(new LostClaims(reason, Optional.empty(), why, unprepared)));
        }
        Map<String, Set<String>> kubelet = prepared(listed, decision.driver(), decision.pool());
        Map<String, PreparedClaim> all = new HashMap<>(book);
        List<PreparedClaim> added = new ArrayList<>();
        for (ClaimRequest r : read.fetched()) {
            Set<String> devices = kubelet.get(r.namespace() + "/" + r.name());
            if (devices == null || all.containsKey(r.uid()) || unprepared.contains(r.uid())) continue;
            if (decision.prepare(r, all) instanceof PrepareAnswer.Prepared p
                    && p.claim().devices().stream().map(PreparedDevice::device).collect(Collectors.toSet()).equals(devices)) {
                all.put(p.claim().uid(), p.claim());
                added.add(p.claim());
            }
        }
        Map<String, Set<String>> left = new TreeMap<>(kubelet);
        all.values().forEach(c -> left.remove(c.namespace() + "/" + c.name()));
        return new Rebuilt(added, left.isEmpty() ? Optional.empty() : Optional.of(new LostClaims(reason, Optional.of(left), "", unprepared)));
    }

    /** By claim {@code namespace/name}, the names of the devices of {@code driver}'s {@code pool} PodResources lists for it. */
    static Map<String, Set<String>> prepared(PodResourcesReading.Listed listed, String driver, String pool) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (HeldDevice h : listed.devices()) {
            if (h instanceof HeldDevice.ByClaim c && c.driver().equals(driver) && c.pool().equals(pool) && c.claim() != null) {
                out.computeIfAbsent(c.claim(), k -> new TreeSet<>()).add(c.device());
            }
        }
        return out;
    }

    /**
     * Why {@code device} may not go to claim {@code claim} ({@code namespace/name}): a claim the
     * kubelet still has prepared may hold it, or nothing tells which devices such claims hold.
     */
    Optional<String> conflict(String claim, String device) {
        if (unrecovered.isEmpty()) {
            return Optional.of(reason + ", and the kubelet's PodResources API cannot tell which devices the claims it still has prepared"
                    + " hold (" + podResources + "): no claim is prepared until it answers (mount /var/lib/kubelet/pod-resources)");
        }
        for (Map.Entry<String, Set<String>> e : unrecovered.get().entrySet()) {
            if (!e.getKey().equals(claim) && e.getValue().contains(device)) {
                return Optional.of("device " + device + " may be held by claim " + e.getKey() + ", which the kubelet still has prepared (PodResources)"
                        + " and whose record was lost: " + reason);
            }
        }
        return Optional.empty();
    }
}
