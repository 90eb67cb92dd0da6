package io.vfiodp.dra.claims;

import java.util.Objects;

/** What the kubelet is told about one claim it asked to prepare. */
public sealed interface PrepareAnswer {

    /** Prepared: its devices, as the checkpoint records them. */
    record Prepared(PreparedClaim claim) implements PrepareAnswer {
        public Prepared {
            Objects.requireNonNull(claim, "claim");
        }
    }

    /** Not prepared, and why. */
    record Failed(String reason) implements PrepareAnswer {
        public Failed {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
