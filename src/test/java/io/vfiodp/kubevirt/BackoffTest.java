package io.vfiodp.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void delaysDoubleUpToTheCap() {
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

        assertThat(b.delay(0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.delay(1)).isEqualTo(Duration.ofSeconds(2));
        assertThat(b.delay(4)).isEqualTo(Duration.ofSeconds(16));
        assertThat(b.delay(5)).isEqualTo(Duration.ofSeconds(30));
        assertThat(b.delay(10_000)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void capBelowInitialIsRejected() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .hasMessage("max backoff PT1S is below initial PT5S");
    }
}
