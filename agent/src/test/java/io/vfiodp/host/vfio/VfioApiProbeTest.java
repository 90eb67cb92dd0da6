package io.vfiodp.host.vfio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The error paths of the VFIO ioctl check, on files that are not a VFIO container: the open and
 * ioctl calls are real, only the answers differ from a VFIO host's.
 */
class VfioApiProbeTest {

    @TempDir Path dev;

    @Test
    void absentContainerIsUnavailableAndSaysWhichPath() {
        assertThat(VfioApiProbe.probe(dev)).isEqualTo(new VfioAvailability.Unavailable(
                dev.resolve("vfio/vfio") + " does not exist (VFIO not running, or /dev not mounted)"));
    }

    @Test
    void regularFileRefusesTheApiVersionIoctlWithEnotty() throws Exception {
        Files.createDirectories(dev.resolve("vfio"));
        Files.writeString(dev.resolve("vfio/vfio"), "");

        assertThat(VfioApiProbe.probe(dev)).isEqualTo(new VfioAvailability.Unavailable(
                dev.resolve("vfio/vfio") + ": VFIO_GET_API_VERSION failed: errno 25 (Inappropriate ioctl for device)"));
    }

    @Test
    void directoryCannotBeOpenedReadWrite() throws Exception {
        Files.createDirectories(dev.resolve("vfio/vfio"));

        assertThat(VfioApiProbe.probe(dev)).isEqualTo(new VfioAvailability.Unavailable(
                "cannot open " + dev.resolve("vfio/vfio") + ": errno 21 (Is a directory)"));
    }

    @Test
    void unavailableDescribesItselfWithTheReason() {
        assertThat(new VfioAvailability.Unavailable("x missing").describe()).isEqualTo("VFIO unavailable: x missing");
    }

    @Test
    void availableDescribesVersionAndBackends() {
        assertThat(new VfioAvailability.Available(0, true, true).describe())
                .isEqualTo("VFIO available: API version 0, type1 IOMMU yes, type1v2 IOMMU yes");
    }

    @Test
    void hostWithoutVfioSaysSoCleanly() {
        assumeFalse(Files.exists(Path.of("/dev/vfio/vfio")), "this host has VFIO");
        assertThat(VfioApiProbe.probe(Path.of("/dev")).describe())
                .isEqualTo("VFIO unavailable: /dev/vfio/vfio does not exist (VFIO not running, or /dev not mounted)");
    }
}
