package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A slow scan never piles up: one in flight, at most one queued behind it, whatever the triggers. */
class RescanBoundsTest {

    /** How long nothing may happen after the second scan: a third would start the moment the second ends. */
    private static final Duration QUIET = Duration.ofMillis(400);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path dir;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger scans = new AtomicInteger();
    /** Holds the scan that finds it set until the test releases it, however long the burst of triggers takes. */
    private final AtomicReference<CountDownLatch> hold = new AtomicReference<>();

    private TargetState slowScan() {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        try {
            // The behaviour under test: a scan slow enough for a burst of triggers to arrive while it runs.
            CountDownLatch release = hold.getAndSet(null);
            if (release != null) release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
            scans.incrementAndGet();
        }
        return TargetState.EMPTY;
    }

    @Test
    void burstOfTriggersDuringASlowScanCostsOneMoreScan() throws Exception {
        try (ServedPlugins runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), this::slowScan)) {
            int afterStart = scans.get();
            CountDownLatch release = new CountDownLatch(1);
            hold.set(release);
            runtime.rescanNow();
            await("the first rescan in flight").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> inFlight.get() == 1);
            for (int i = 0; i < 100; i++) runtime.rescanNow();
            release.countDown();

            await("the queued rescan done").atMost(WAIT).until(() -> scans.get() - afterStart >= 2);
            // A third scan would start the moment the second ends (the rescan thread runs its queue in order).
            await("no third scan").during(QUIET).atMost(QUIET.plus(WAIT)).untilAsserted(() -> {
                assertThat(scans.get() - afterStart).as("scans after the start").isEqualTo(2);
                assertThat(inFlight.get()).as("scans in flight").isZero();
            });

            assertThat(scans.get() - afterStart).isEqualTo(2);
            assertThat(maxInFlight.get()).isEqualTo(1);
        }
    }
}
