package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServePrestartTest {

    @Test
    void prestartEndsOnItsOwnAfterItsSteps() throws Exception {
        Thread prestart = ServePrestart.begin();

        assertThat(prestart.getName()).isEqualTo(ServePrestart.THREAD);
        assertThat(prestart.isDaemon()).isTrue();
        assertThat(prestart.join(Duration.ofSeconds(30))).as("prestart ended").isTrue();
    }

    @Test
    void aStepThatFailsLeavesTheRestToRun() {
        StringBuilder ran = new StringBuilder();

        ServePrestart.steps(() -> {
            throw new UnsatisfiedLinkError("no libc");
        }, () -> ran.append("next"));

        assertThat(ran).hasToString("next");
    }
}
