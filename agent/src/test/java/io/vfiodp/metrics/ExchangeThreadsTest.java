package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExchangeThreadsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static boolean exchangeThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("test-exchanges-") && t.isAlive());
    }

    @Test
    void eachExchangeRunsOnAThreadOfItsOwnSoOneThatBlocksHoldsNoOther() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        try (ExchangeThreads threads = new ExchangeThreads("test-exchanges", 2)) {
            threads.execute(() -> block(release));
            threads.execute(second::countDown);

            assertThat(second.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            release.countDown();
        }
    }

    @Test
    void pastTheMaximumAnExchangeIsRefusedAndOnceOneEndsTheNextIsTaken() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(1);
        try (ExchangeThreads threads = new ExchangeThreads("test-exchanges", 2)) {
            threads.execute(() -> block(release));
            CountDownLatch secondEnds = new CountDownLatch(1);
            threads.execute(() -> {
                block(release);
                secondEnds.countDown();
            });

            assertThatThrownBy(() -> threads.execute(ran::countDown)).isInstanceOf(RejectedExecutionException.class);
            release.countDown();
            assertThat(secondEnds.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // a slot is given back as its exchange ends, a moment after the exchange's last statement
            await().atMost(WAIT).ignoreExceptionsInstanceOf(RejectedExecutionException.class)
                    .until(() -> {
                        threads.execute(ran::countDown);
                        return true;
                    });
            assertThat(ran.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void closeWaitsForTheExchangesToEndAndRefusesNewOnes() {
        CountDownLatch release = new CountDownLatch(1);
        ExchangeThreads threads = new ExchangeThreads("test-exchanges", 2);
        threads.execute(() -> block(release));
        release.countDown();

        threads.close();

        assertThat(exchangeThreadAlive()).isFalse();
        assertThatThrownBy(() -> threads.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
    }

    private static void block(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
