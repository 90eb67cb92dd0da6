package io.vfiodp.handover;

import java.util.Set;

/**
 * The devices a pod may hold through a device plugin of ours: those the device plugins offered on
 * this node since the kubelet's PodResources last showed them free. A device outside it can go to
 * DRA without asking PodResources; one in it only once PodResources shows that no pod holds it.
 */
public sealed interface HandoverRecord {

    /** Whether a pod may hold {@code id} through a device plugin. */
    boolean mayHold(String id);

    /** The devices, as kept across restarts. */
    record Known(Set<String> devices) implements HandoverRecord {
        public static final Known NONE = new Known(Set.of());

        public Known {
            devices = Set.copyOf(devices);
        }

        @Override
        public boolean mayHold(String id) {
            return devices.contains(id);
        }
    }

    /**
     * No record to trust: none on a node whose kubelet has run device plugins (an upgrade from a
     * version that kept none, a record deleted), or one that cannot be read, is empty, or fails its
     * checks. Any device may be held until PodResources says otherwise.
     *
     * @param reason what happened to the record, naming its file
     */
    record Lost(String reason) implements HandoverRecord {
        public Lost {
            java.util.Objects.requireNonNull(reason, "reason");
        }

        @Override
        public boolean mayHold(String id) {
            return true;
        }
    }
}
