package io.vfiodp.holders;

import java.util.List;
import java.util.Objects;

/** Who holds one device: nobody, some containers, or it cannot be told. */
public sealed interface Holding {

    Free FREE = new Free();

    /** PodResources answered, and no running container holds it. */
    record Free() implements Holding {}

    /** These containers hold it: one usually, more for a claim two pods share or a device listed by two ways during a switch. */
    record Held(List<Holder> holders) implements Holding {
        public Held {
            holders = List.copyOf(holders);
            if (holders.isEmpty()) throw new IllegalArgumentException("a held device has a holder");
        }
    }

    /** PodResources did not answer: nothing can be shown free. */
    record Unknown(String reason) implements Holding {
        public Unknown {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
