package io.vfiodp.handover;

import java.util.Objects;
import java.util.Set;

/**
 * The devices prepared DRA claims hold, as the DRA driver (or, while none runs, its checkpoint)
 * knows them: what the device plugins must not offer.
 */
public sealed interface HandoverClaims {

    Known NONE = new Known(Set.of());

    /** The device IDs claims are known to hold. */
    Set<String> known();

    /** The claims' record is whole: these are all. */
    record Known(Set<String> known) implements HandoverClaims {
        public Known {
            known = Set.copyOf(known);
        }
    }

    /**
     * The claims' record was lost ({@code reason} says how, naming the file): beyond {@code known},
     * any device may be held by a claim the kubelet still has prepared, until its PodResources
     * shows which.
     */
    record Unknown(Set<String> known, String reason) implements HandoverClaims {
        public Unknown {
            known = Set.copyOf(known);
            Objects.requireNonNull(reason, "reason");
        }
    }
}
