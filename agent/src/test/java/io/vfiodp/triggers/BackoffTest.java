package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1));

    @Test
    void delayDoublesAfterEachFailure() {
        assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofMillis(400));
        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void delayNeverExceedsTheCapHoweverManyFailures() {
        assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delayAfter(10_000)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void capBelowTheInitialDelayIsRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessage("backoff cap PT1S is below the initial delay PT2S");
    }
}
