package io.vfiodp.kubevirt;

import java.time.Duration;
import java.util.Objects;

/** Retry delays that double from {@code initial} up to {@code max}. */
record Backoff(Duration initial, Duration max) {

    static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || initial.isZero()) throw new IllegalArgumentException("initial backoff must be positive: " + initial);
        if (max.compareTo(initial) < 0) throw new IllegalArgumentException("max backoff " + max + " is below initial " + initial);
    }

    /** Delay before retry number {@code attempt} (0-based). */
    Duration delay(int attempt) {
        Duration d = initial;
        for (int i = 0; i < attempt && d.compareTo(max) < 0; i++) d = d.multipliedBy(2);
        return d.compareTo(max) > 0 ? max : d;
    }
}
