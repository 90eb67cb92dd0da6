package io.vfiodp.triggers;

/**
 * A monotonic clock in nanoseconds. Backoffs and wake-ups are measured on it rather than on the
 * wall clock, which NTP may step; tests pass their own to drive time by hand.
 */
@FunctionalInterface
public interface Ticker {

    Ticker SYSTEM = System::nanoTime;

    /** Nanoseconds since an arbitrary origin; only differences mean anything, and they may wrap. */
    long nanos();
}
