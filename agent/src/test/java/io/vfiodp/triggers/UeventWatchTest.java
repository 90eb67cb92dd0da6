package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.uevent.Uevent;
import io.vfiodp.host.uevent.UeventQueue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bursts of kernel uevents, as a fake kernel sends them, become one report each. */
class UeventWatchTest {

    private static final String GPU = "0000:3b:00.0";
    private static final String DEVPATH = "/devices/pci0000:3a/0000:3a:00.0/" + GPU;
    private static final UeventWatch.Coalescing COALESCING = new UeventWatch.Coalescing(Duration.ofMillis(100), Duration.ofSeconds(5));
    private static final String THREAD = "uevent-watch-test";

    private final UeventQueue kernel = new UeventQueue();
    private final List<UeventWatch.Burst> bursts = new CopyOnWriteArrayList<>();
    private UeventWatch watch;

    @AfterEach
    void close() {
        if (watch != null) watch.close();
    }

    private void start(UeventWatch.Coalescing coalescing) {
        watch = UeventWatch.start(kernel, THREAD, coalescing, bursts::add);
    }

    private Uevent[] bindToVfioPci() {
        return new Uevent[] {
            kernel.event("add", "/devices/virtual/vfio/24", "vfio", Map.of("DEVNAME", "vfio/24")),
            kernel.event("add", DEVPATH + "/vfio-dev/vfio0", "vfio-dev", Map.of()),
            kernel.event("bind", DEVPATH, "pci", Map.of("DRIVER", "vfio-pci", "PCI_SLOT_NAME", GPU))};
    }

    @Test
    void aBindsThreeEventsAreOneBurstNamingTheFunction() {
        start(COALESCING);
        kernel.send(bindToVfioPci());

        await().atMost(Duration.ofSeconds(30)).until(() -> !bursts.isEmpty());
        assertThat(bursts).containsExactly(new UeventWatch.Burst.Changed(ChangedDevices.function(PciAddress.parse(GPU)), 3));
    }

    @Test
    void twoBurstsApartAreTwoReports() {
        start(COALESCING);
        kernel.send(bindToVfioPci());
        await().atMost(Duration.ofSeconds(30)).until(() -> bursts.size() == 1);
        kernel.send(kernel.event("unbind", "/devices/pci0000:00/0000:00:02.0/0000:01:00.0", "pci", Map.of("PCI_SLOT_NAME", "0000:01:00.0")));

        await().atMost(Duration.ofSeconds(30)).until(() -> bursts.size() == 2);
        assertThat(bursts.get(1)).isEqualTo(new UeventWatch.Burst.Changed(ChangedDevices.function(PciAddress.parse("0000:01:00.0")), 1));
    }

    @Test
    void eventsAboutNothingAScanReadsReportNothing() {
        start(COALESCING);
        kernel.send(kernel.event("add", "/devices/virtual/net/veth12", "net", Map.of()),
                kernel.event("change", "/devices/virtual/block/loop0", "block", Map.of()));

        // the watch waits without a limit again once the burst is over
        await().atMost(Duration.ofSeconds(30)).until(() -> kernel.blockingReceives() == 2);
        assertThat(bursts).isEmpty();
    }

    @Test
    void unrelatedEventsInABurstAreCountedAndTheDevicesNamed() {
        start(COALESCING);
        kernel.send(kernel.event("add", "/devices/virtual/net/veth12", "net", Map.of()));
        kernel.send(bindToVfioPci());

        await().atMost(Duration.ofSeconds(30)).until(() -> !bursts.isEmpty());
        assertThat(bursts).containsExactly(new UeventWatch.Burst.Changed(ChangedDevices.function(PciAddress.parse(GPU)), 4));
    }

    @Test
    void aGroupNodeAloneNamesNoDeviceButAsksForAPass() {
        start(COALESCING);
        kernel.send(kernel.event("remove", "/devices/virtual/vfio/7", "vfio", Map.of("DEVNAME", "vfio/7")));

        await().atMost(Duration.ofSeconds(30)).until(() -> !bursts.isEmpty());
        assertThat(bursts).as("/dev is read again by every pass").containsExactly(new UeventWatch.Burst.Changed(ChangedDevices.NONE, 1));
    }

    @Test
    void aLostEventMakesTheBurstAnOverflow() {
        start(COALESCING);
        kernel.send(bindToVfioPci()[0]);
        kernel.overflow();
        kernel.send(bindToVfioPci()[2]);

        await().atMost(Duration.ofSeconds(30)).until(() -> !bursts.isEmpty());
        assertThat(bursts).containsExactly(new UeventWatch.Burst.Overflow());
    }

    /**
     * An SR-IOV enable: events 20 ms apart for a second, never quiet for the 200 ms a burst waits.
     * The watch's clock is the events it has read, 20 ms each, so the stream lasts as long whatever
     * the machine's load.
     */
    @Test
    void aBurstThatGoesOnIsReportedInPartsEachNoLongerThanTheLongest() {
        long twentyMillis = Duration.ofMillis(20).toNanos();
        watch = UeventWatch.start(kernel, THREAD, new UeventWatch.Coalescing(Duration.ofMillis(200), Duration.ofMillis(200)), bursts::add,
                () -> kernel.eventsReceived() * twentyMillis);
        for (int i = 0; i < 50; i++) {
            kernel.send(kernel.event("add", "/devices/pci0000:3a/0000:3a:00.0/0000:3b:00." + (i % 8), "pci", Map.of()));
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> bursts.stream().mapToInt(b -> ((UeventWatch.Burst.Changed) b).events()).sum() == 50);
        // a part ends when 200 ms have passed since its first event: that event and ten more
        assertThat(bursts).extracting(b -> ((UeventWatch.Burst.Changed) b).events()).containsExactly(11, 11, 11, 11, 6);
    }

    @Test
    void aFailingSocketEndsTheWatchWithItsReasonAndIsClosed() {
        start(COALESCING);
        kernel.fail("receive on the uevent socket failed: errno 9 (Bad file descriptor)");

        await().atMost(Duration.ofSeconds(30)).until(() -> !bursts.isEmpty());
        assertThat(bursts).containsExactly(new UeventWatch.Burst.Failed("receive on the uevent socket failed: errno 9 (Bad file descriptor)"));
        await().atMost(Duration.ofSeconds(30)).until(kernel::closed);
    }

    @Test
    void closeWakesTheReceiverWhichClosesTheSocketAndEnds() {
        start(COALESCING);
        watch.close();

        assertThat(kernel.closed()).isTrue();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(THREAD));
        assertThat(bursts).isEmpty();
    }

    @Test
    void aQuietPeriodLongerThanTheLongestBurstIsRefused() {
        assertThatThrownBy(() -> new UeventWatch.Coalescing(Duration.ofSeconds(1), Duration.ofMillis(10)))
                .hasMessage("longest burst PT0.01S is below the quiet period PT1S");
        assertThatThrownBy(() -> new UeventWatch.Coalescing(Duration.ZERO, Duration.ofMillis(10)))
                .hasMessage("uevent quiet period must be positive: PT0S");
    }
}
