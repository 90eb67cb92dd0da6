package io.vfiodp.triggers;

import java.time.Duration;
import java.util.Objects;

/** Capped exponential backoff: {@code initial}, doubled after each failure, never above {@code max}. */
public record Backoff(Duration initial, Duration max) {

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || initial.isZero()) throw new IllegalArgumentException("backoff initial delay must be positive: " + initial);
        if (max.compareTo(initial) < 0) throw new IllegalArgumentException("backoff cap " + max + " is below the initial delay " + initial);
    }

    /** The wait before the next attempt after {@code failures} consecutive failures (1 = first failure). */
    public Duration delayAfter(int failures) {
        if (failures < 1) return Duration.ZERO;
        Duration d = initial;
        for (int i = 1; i < failures && d.compareTo(max) < 0; i++) d = d.multipliedBy(2);
        return d.compareTo(max) > 0 ? max : d;
    }
}
