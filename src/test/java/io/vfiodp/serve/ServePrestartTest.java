package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.SubstituteLogger;
import org.slf4j.helpers.SubstituteLoggerFactory;

class ServePrestartTest {

    @Test
    void prestartEndsOnItsOwnAfterItsSteps() throws Exception {
        Thread prestart = ServePrestart.begin().thread();

        assertThat(prestart.getName()).isEqualTo(ServePrestart.THREAD);
        assertThat(prestart.isDaemon()).isTrue();
        assertThat(prestart.join(Duration.ofSeconds(30))).as("prestart ended").isTrue();
    }

    @Test
    void afterAwaitingLoggingLoggersAreTheBackendsNotSubstitutes() {
        ServePrestart.begin().awaitLogging();

        assertThat(LoggerFactory.getILoggerFactory()).isNotInstanceOf(SubstituteLoggerFactory.class);
        assertThat(LoggerFactory.getLogger(ServePrestartTest.class)).isNotInstanceOf(SubstituteLogger.class);
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
