package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A slow scan never piles up: one in flight, at most one queued behind it, whatever the triggers. */
class RescanBoundsTest {

    private static final Duration SCAN = Duration.ofMillis(200);
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir Path dir;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger scans = new AtomicInteger();

    private TargetState slowScan() {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        try {
            // The behaviour under test: a scan slow enough for a burst of triggers to arrive while it runs.
            Thread.sleep(SCAN.toMillis());
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
        try (PluginRuntime runtime = PluginRuntime.start(PluginSettings.of(dir, Duration.ofHours(1)), this::slowScan)) {
            int afterStart = scans.get();
            runtime.rescanNow();
            await("the first rescan in flight").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> inFlight.get() == 1);
            for (int i = 0; i < 100; i++) runtime.rescanNow();

            await("the queued rescan done").atMost(WAIT).until(() -> scans.get() - afterStart >= 2);
            // A third scan would start the moment the second ends (the rescan thread runs its queue in order):
            // none in flight and none done for two scan lengths shows that none was queued.
            await("no third scan").during(SCAN.multipliedBy(2)).atMost(SCAN.multipliedBy(2).plus(WAIT)).untilAsserted(() -> {
                assertThat(scans.get() - afterStart).as("scans after the start").isEqualTo(2);
                assertThat(inFlight.get()).as("scans in flight").isZero();
            });

            assertThat(scans.get() - afterStart).isEqualTo(2);
            assertThat(maxInFlight.get()).isEqualTo(1);
        }
    }
}
