package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ServePrestartTest {

    @Test
    void prestartEndsOnItsOwnAfterItsSteps() throws Exception {
        Thread prestart = ServePrestart.begin().thread();

        assertThat(prestart.getName()).isEqualTo(ServePrestart.THREAD);
        assertThat(prestart.isDaemon()).isTrue();
        assertThat(prestart.join(Duration.ofSeconds(30))).as("prestart ended").isTrue();
    }

    @Test
    void awaitingLoggingReturnsOnlyOnceTheLoggingStepHasEnded() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stepEnded = new AtomicBoolean();
        ServePrestart prestart = ServePrestart.begin(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stepEnded.set(true);
        });
        AtomicBoolean stepEndedWhenAwaitReturned = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            prestart.awaitLogging();
            stepEndedWhenAwaitReturned.set(stepEnded.get());
        });

        await().atMost(Duration.ofSeconds(30)).until(() -> waiter.getState() == Thread.State.WAITING || !waiter.isAlive());
        assertThat(waiter.isAlive()).as("awaitLogging still waiting while the logging step runs").isTrue();
        release.countDown();
        assertThat(waiter.join(Duration.ofSeconds(10))).as("awaitLogging returned").isTrue();
        assertThat(stepEndedWhenAwaitReturned).isTrue();
    }

    @Test
    void awaitingLoggingReturnsWhenTheLoggingStepFails() {
        ServePrestart prestart = ServePrestart.begin(() -> {
            throw new NoClassDefFoundError("org/slf4j/LoggerFactory");
        });

        assertThat(CompletableFuture.runAsync(prestart::awaitLogging)).succeedsWithin(Duration.ofSeconds(10));
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
