package io.vfiodp.kubelet;

import java.util.List;
import java.util.Objects;

/** What one {@code List} of the kubelet's PodResources API said, or why it could not be asked. */
public sealed interface PodResourcesReading {

    /** Every device the containers of running pods hold, through device plugins and through DRA. */
    record Listed(List<HeldDevice> devices) implements PodResourcesReading {
        public Listed {
            devices = List.copyOf(devices);
        }
    }

    /** The API did not answer: nothing can be proven free. */
    record Unreadable(String reason) implements PodResourcesReading {
        public Unreadable {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
