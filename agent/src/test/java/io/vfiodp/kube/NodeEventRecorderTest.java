package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeEventRecorderTest {

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-05T10:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override public Instant instant() { return now; }
        @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(java.time.ZoneId zone) { return this; }
    }

    private final MockKubeApi api = MockKubeApi.start();
    private final ManualClock clock = new ManualClock();
    private NodeEventRecorder recorder;

    @AfterEach
    void tearDown() {
        if (recorder != null) recorder.close();
        api.close();
    }

    private void startRecorder(int capacity) {
        recorder = new NodeEventRecorder(api.client(), "gpu-node-1", clock, capacity, Duration.ofMinutes(30));
        recorder.start();
    }

    @Test
    void normalEventIsPostedWithTypeNormal() throws Exception {
        startRecorder(8);

        recorder.normal("VfioDeviceHealthy", "nvidia.com/TU104GL_TESLA_T4 device 0000:1a:00.0 is Healthy again");

        Event e = api.awaitEvents(1).get(0);
        assertThat(e.getType()).isEqualTo("Normal");
        assertThat(e.getReason()).isEqualTo("VfioDeviceHealthy");
        assertThat(e.getMessage()).isEqualTo("nvidia.com/TU104GL_TESLA_T4 device 0000:1a:00.0 is Healthy again");
    }

    @Test
    void warningIsPostedOnTheNode() throws Exception {
        startRecorder(8);

        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[0] skipped");

        Event e = api.awaitEvents(1).get(0);
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReason()).isEqualTo("InvalidPermittedHostDevice");
        assertThat(e.getMessage()).isEqualTo("pciHostDevices[0] skipped");
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
        assertThat(e.getInvolvedObject().getName()).isEqualTo("gpu-node-1");
        assertThat(e.getSource().getComponent()).isEqualTo("vfio-device-plugin");
        assertThat(e.getSource().getHost()).isEqualTo("gpu-node-1");
        assertThat(e.getFirstTimestamp()).isEqualTo("2026-01-05T10:00:00Z");
        assertThat(e.getCount()).isEqualTo(1);
        assertThat(e.getMetadata().getName()).startsWith("gpu-node-1.");
    }

    @Test
    void sameWarningWithinTheWindowIsPostedOnce() throws Exception {
        startRecorder(8);

        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[0] skipped");
        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[0] skipped");
        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[1] skipped");

        assertThat(api.awaitEvents(2)).extracting(Event::getMessage)
                .containsExactlyInAnyOrder("pciHostDevices[0] skipped", "pciHostDevices[1] skipped");
        // one queue, one sender, in order: a later event posted means the repeat before it was dropped, not late
        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[2] skipped");
        assertThat(api.awaitEvents(3)).extracting(Event::getMessage)
                .containsExactlyInAnyOrder("pciHostDevices[0] skipped", "pciHostDevices[1] skipped", "pciHostDevices[2] skipped");
    }

    @Test
    void sameWarningIsPostedAgainAfterTheWindow() throws Exception {
        startRecorder(8);
        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[0] skipped");
        api.awaitEvents(1);

        clock.advance(Duration.ofMinutes(31));
        recorder.warn("InvalidPermittedHostDevice", "pciHostDevices[0] skipped");

        assertThat(api.awaitEvents(2)).extracting(Event::getLastTimestamp)
                .containsExactlyInAnyOrder("2026-01-05T10:00:00Z", "2026-01-05T10:31:00Z");
    }

    @Test
    void fullQueueDropsInsteadOfBlocking() {
        recorder = new NodeEventRecorder(api.client(), "gpu-node-1", clock, 1, Duration.ofMinutes(30));

        assertThat(recorder.warn("A", "first")).isTrue();
        assertThat(recorder.warn("A", "second")).isFalse();
    }

    @Test
    void longMessagesAreCutToTheApiLimit() throws Exception {
        startRecorder(8);

        recorder.warn("InvalidPermittedHostDevice", "x".repeat(5000));

        assertThat(api.awaitEvents(1).get(0).getMessage()).hasSize(1024).endsWith("…");
    }
}
