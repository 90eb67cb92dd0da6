package io.vfiodp.dra;

import java.time.Instant;
import java.util.Objects;

/**
 * When a step happens, as the driver's injected clocks tell it: {@code nanos} on the monotonic
 * ticker (backoffs and wake-ups, compared by difference), {@code wall} for what the kubelet is told
 * (the health list's stamps).
 */
record Now(long nanos, Instant wall) {

    Now {
        Objects.requireNonNull(wall, "wall");
    }
}
