package io.vfiodp.host.uevent;

import java.util.Objects;

/** What one receive on the uevent socket gave. */
public sealed interface UeventReceipt {

    /** A kernel uevent. */
    record Event(Uevent event) implements UeventReceipt {
        public Event {
            Objects.requireNonNull(event, "event");
        }
    }

    /** A message that was not taken: not from the kernel, or not in the kernel's format; {@code reason} says which. */
    record Dropped(String reason) implements UeventReceipt {
        public Dropped {
            if (reason == null || reason.isBlank()) throw new IllegalArgumentException("a dropped message needs a reason");
        }
    }

    /**
     * The socket's receive buffer overflowed and the kernel dropped events (ENOBUFS): which
     * devices changed is no longer known, so the caller must scan everything.
     */
    record Overflow() implements UeventReceipt {}

    /** {@link UeventSocket#wakeup()} was called. */
    record Woken() implements UeventReceipt {}

    /**
     * Nothing arrived within the wait given to {@link UeventSocket#receive(java.time.Duration)}:
     * the kernel is quiet, so the events of a burst have all been taken.
     */
    record Idle() implements UeventReceipt {}
}
