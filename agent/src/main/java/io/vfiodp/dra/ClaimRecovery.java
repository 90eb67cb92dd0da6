package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * While the checkpoint is lost: asks the kubelet's PodResources which claims of this driver's pool
 * it still has prepared, and the API about those the book lacks. Slow (a socket and API calls):
 * run on a pass's or a gRPC handler's thread, never under the claims' lock.
 */
final class ClaimRecovery {

    /**
     * What the kubelet's PodResources lists as prepared, and what the API says of the claims it
     * names that the book lacks ({@code fetched}, each with the UID the API gave it).
     */
    record Reading(PodResourcesReading reading, List<ClaimRequest> fetched) {
        Reading {
            Objects.requireNonNull(reading, "reading");
            fetched = List.copyOf(fetched);
        }
    }

    private final Supplier<PodResourcesReading> pods;
    private final ClaimSource source;
    private final String driver;
    private final String pool;

    ClaimRecovery(Supplier<PodResourcesReading> pods, ClaimSource source, String driver, String pool) {
        this.pods = pods;
        this.source = source;
        this.driver = driver;
        this.pool = pool;
    }

    /**
     * @param known the claims in the book, as {@code namespace/name}: the API is not asked about them
     */
    Reading read(Set<String> known) {
        PodResourcesReading reading = pods.get();
        List<ClaimRequest> fetched = new ArrayList<>();
        if (reading instanceof PodResourcesReading.Listed listed) {
            for (String claim : LostClaims.prepared(listed, driver, pool).keySet()) {
                int slash = claim.indexOf('/');
                if (known.contains(claim) || slash < 0) continue;
                String namespace = claim.substring(0, slash);
                String name = claim.substring(slash + 1);
                ClaimSource.Fetched f = source.fetch(namespace, name);
                // the API's UID: PodResources names claims without one
                if (f instanceof ClaimSource.Found found && found.claim().getMetadata() != null && found.claim().getMetadata().getUid() != null) {
                    fetched.add(new ClaimRequest(namespace, found.claim().getMetadata().getUid(), name, Optional.of(f)));
                }
            }
        }
        return new Reading(reading, fetched);
    }
}
