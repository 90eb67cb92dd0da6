package io.vfiodp.plugin;

import io.vfiodp.node.TargetState;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A slow scan never piles up: one in flight, at most one queued behind it, whatever the triggers. */
class RescanBoundsTest {

    @TempDir Path dir;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger scans = new AtomicInteger();

    private TargetState slowScan() {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        try {
            Thread.sleep(200);
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
            Thread.sleep(50);
            for (int i = 0; i < 100; i++) runtime.rescanNow();

            Thread.sleep(1000);

            assertThat(scans.get() - afterStart).isEqualTo(2);
            assertThat(maxInFlight.get()).isEqualTo(1);
        }
    }
}
