package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.Reading;
import io.vfiodp.host.scan.UnprivilegedThread;
import io.vfiodp.host.vfio.VfioAvailability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VfioProbeTest {

    @TempDir Path dev;

    @Test
    void aMissingContainerIsTheChecksAnswer() {
        assertThat(VfioProbe.ioctls().ask(dev)).isEqualTo(new Reading.Found<>(new VfioAvailability.Unavailable(
                dev.resolve("vfio/vfio") + " does not exist (VFIO not running, or /dev not mounted)")));
    }

    @Test
    void aContainerThisProcessMayNotOpenIsNotAsked() throws Exception {
        Path container = Files.createDirectories(dev.resolve("vfio")).resolve("vfio");
        Files.createFile(container, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("---------")));

        Reading<VfioAvailability> answer = UnprivilegedThread.call(() -> VfioProbe.ioctls().ask(dev), Duration.ofSeconds(30));

        assertThat(answer).isEqualTo(new Reading.Unreadable<>(container.toString(), "this process may not open it (permission denied: only root may)"));
    }

    @Test
    void servesAnswerStandsWhereTheContainerAnswered() {
        VfioAvailability available = new VfioAvailability.Available(0, true, true);

        assertThat(VfioProbe.answer(available, dev)).isEqualTo(new Reading.Found<>(available));
    }
}
