package io.vfiodp.policy;

import io.vfiodp.host.PciAddress;
import java.util.List;
import java.util.Objects;

/** What the policy did with one device, and why: the answer the inventory command prints. */
public sealed interface Decision {

    /**
     * Advertised under {@code resource}; {@code notes} say what an operator should know (a
     * repaired or disambiguated name, a companion that keeps the group from being viable).
     */
    record Exposed(ResourceName resource, List<String> notes) implements Decision {
        public Exposed {
            Objects.requireNonNull(resource, "resource");
            notes = List.copyOf(notes);
        }
    }

    /** Not advertised, for {@code reason}. */
    record Skipped(String reason) implements Decision {
        public Skipped {
            if (reason == null || reason.isBlank()) throw new IllegalArgumentException("a skipped device needs a reason");
        }
    }

    /**
     * Shares an IOMMU group with exposed device {@code of} and travels with it to the VM;
     * {@code notes} say why when the function could have been a device of its own.
     */
    record Companion(PciAddress of, List<String> notes) implements Decision {
        public Companion {
            Objects.requireNonNull(of, "of");
            notes = List.copyOf(notes);
        }

        public Companion(PciAddress of) {
            this(of, List.of());
        }
    }
}
