package io.vfiodp.holders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The tracker reads PodResources on its own thread when asked, publishes each view, and never holds its callers up. */
class HolderTrackerTest {

    /** Generous: the tracker's thread may wait for a core on a busy machine. */
    static final Duration WAIT = Duration.ofSeconds(30);

    final AtomicReference<PodResourcesReading> reading = new AtomicReference<>(new PodResourcesReading.Listed(List.of()));
    final AtomicInteger reads = new AtomicInteger();
    final List<HolderView> published = new CopyOnWriteArrayList<>();
    final List<HealthNotices.Notice> notices = new CopyOnWriteArrayList<>();

    HolderTracker start(CountDownLatch gate) {
        return HolderTracker.start(() -> {
            reads.incrementAndGet();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return reading.get();
        }, () -> AttributionTest.PODS, AttributionTest.DRIVER, published::add, notices::addAll, Duration.ofMillis(50), Duration.ofHours(1));
    }

    @Test
    void whatTheNodeOffersIsReadAndPublished() {
        reading.set(new PodResourcesReading.Listed(List.of(AttributionTest.plugin("vms/plain", "compute", AttributionTest.T4,
                AttributionTest.PCI_A.id()))));
        try (HolderTracker tracker = start(new CountDownLatch(0))) {
            tracker.offered(List.of(AttributionTest.PCI_A));

            await().atMost(WAIT).until(() -> tracker.view().holding(AttributionTest.PCI_A.id()).orElse(Holding.FREE) instanceof Holding.Held);
            assertThat(published).last().isEqualTo(tracker.view());
        }
    }

    @Test
    void theSameOfferAgainReadsNothingMore() {
        try (HolderTracker tracker = start(new CountDownLatch(0))) {
            tracker.offered(List.of(AttributionTest.PCI_A));
            await().atMost(WAIT).until(() -> published.size() == 1);

            tracker.offered(List.of(AttributionTest.PCI_A));
            tracker.offered(List.of(AttributionTest.PCI_A.withHealth(HealthNoticesTest.SICK.health())));

            await().atMost(WAIT).until(() -> published.size() == 2);
            assertThat(reads).hasValue(2);
        }
    }

    @Test
    void aBurstOfRefreshesCostsOneRead() {
        CountDownLatch gate = new CountDownLatch(1);
        try (HolderTracker tracker = start(gate)) {
            tracker.offered(List.of(AttributionTest.PCI_A));
            await().atMost(WAIT).until(() -> reads.get() == 1);
            // the first read waits at the gate: the refreshes all come while it runs
            for (int i = 0; i < 50; i++) tracker.refreshSoon();
            gate.countDown();

            await().atMost(WAIT).until(() -> published.size() == 2);
            assertThat(reads).hasValue(2);
        }
    }

    @Test
    void aPodResourcesReadThatHangsHoldsUpNoCaller() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (HolderTracker tracker = start(gate)) {
            tracker.offered(List.of(AttributionTest.PCI_A));
            await().atMost(WAIT).until(() -> reads.get() == 1);

            // the read hangs; an Allocate's hook and a pass still return
            Thread caller = Thread.ofPlatform().start(() -> {
                tracker.refreshSoon();
                tracker.offered(List.of(AttributionTest.PCI_B));
            });
            caller.join(WAIT.toMillis());

            assertThat(caller.isAlive()).isFalse();
            assertThat(tracker.view()).isEqualTo(HolderView.EMPTY);
            gate.countDown();
        }
    }

    @Test
    void aHeldDeviceTurningUnhealthyIsNoticedOnce() {
        List<HeldDevice> held = HealthNoticesTest.HELD;
        reading.set(new PodResourcesReading.Listed(held));
        try (HolderTracker tracker = start(new CountDownLatch(0))) {
            tracker.offered(List.of(AttributionTest.PCI_A));
            tracker.offered(List.of(HealthNoticesTest.SICK));
            tracker.refreshSoon();
            await().atMost(WAIT).until(() -> published.size() == 3);

            assertThat(notices).singleElement().satisfies(n -> assertThat(n.unhealthy()).isTrue());
        }
    }
}
