package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks {@link CorruptedTreeScanProperties} relies on can see what they look for. */
class CorruptedTreeOraclesTest {

    private static final Duration GUARD = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    void openWatchSeesAFileReadInAWatchedTree() throws IOException {
        Path file = Files.writeString(Files.createDirectories(tmp.resolve("outside/a")).resolve("vendor"), "0x10de\n");

        try (OpenWatch watch = OpenWatch.of(List.of(tmp.resolve("outside")), Set.of())) {
            Files.readAllBytes(file);

            assertThat(watch.drain()).contains(file + " opened", file + " read");
        }
    }

    @Test
    void openWatchSeesADirectoryListedButNotASkippedTree() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside/a"));
        Path skipped = Files.createDirectories(tmp.resolve("outside/node"));

        try (OpenWatch watch = OpenWatch.of(List.of(tmp.resolve("outside")), Set.of(skipped))) {
            try (var list = Files.list(outside)) {
                list.count();
            }
            try (var list = Files.list(skipped)) {
                list.count();
            }

            assertThat(watch.drain()).contains(outside + " opened").doesNotContain(skipped + " opened");
        }
    }

    @Test
    void fileOfMode000CannotBeReadOnAnUnprivilegedThread() throws IOException {
        Path file = Files.writeString(tmp.resolve("vendor"), "0x10de\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));

        assertThatThrownBy(() -> UnprivilegedThread.call(() -> Files.readAllBytes(file), GUARD))
                .isInstanceOf(AccessDeniedException.class);
    }

    @Test
    void readCharsCountsTheBytesOfAFileRead() throws IOException {
        Path file = Files.write(tmp.resolve("big"), new byte[1 << 20]);

        long before = ProcessIo.readChars();
        Files.readAllBytes(file);

        assertThat(ProcessIo.readChars() - before).isGreaterThanOrEqualTo(1 << 20);
    }

    @Test
    void footprintOfAGpuHoldsItsFilesLinksDriverGroupAndDevNodeButNoSiblingsFiles() throws IOException {
        DeviceFootprints gpu = DeviceFootprints.ofFunction(SysfsFixtures.committedRoot().resolve("workstation"),
                PciAddress.parse("0000:01:00.0"), Optional.of(12));

        assertThat(List.of(
                "sys/bus/pci/devices/0000:01:00.0",
                "sys/devices/pci0000:00",
                "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor",
                "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/driver",
                "sys/bus/pci/drivers/vfio-pci",
                "sys/kernel/iommu_groups/12/devices/0000:01:00.1",
                "dev/vfio/12",
                "dev/vfio")).allMatch(gpu::touchedBy);
        assertThat(List.of(
                "sys/devices/pci0000:00/0000:00:14.0/numa_node",
                "sys/devices/pci0000:00/0000:00:01.0/vendor",
                "sys/bus/pci/drivers/vfio-pci/bind",
                "sys/bus/pci/devices/0000:01:00.1",
                "sys/kernel/iommu_groups/2",
                "dev/vfio/vfio")).noneMatch(gpu::touchedBy);
    }
}
