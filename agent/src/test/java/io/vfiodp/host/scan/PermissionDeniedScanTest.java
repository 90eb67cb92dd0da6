package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Entries the plugin may not read (it runs unprivileged here: see {@link UnprivilegedThread}).
 * Found by {@link CorruptedTreeScanProperties}: the reason used to be the JDK's exception name
 * and the entry's absolute path ({@code cannot read: AccessDeniedException: /host/sys/...}).
 */
class PermissionDeniedScanTest {

    private static final Duration GUARD = Duration.ofSeconds(30);

    private static HostSnapshot scanWith(TreeCorruption denied) throws Exception {
        try (CorruptedNode node = CorruptedNode.of("workstation", List.of(denied))) {
            return UnprivilegedThread.call(() -> new SysfsScanner(node.sys(), node.dev()).scan(), GUARD);
        }
    }

    @Test
    void deniedAttributeFileIsReportedAsPermissionDeniedWithoutItsAbsolutePath() throws Exception {
        HostSnapshot snapshot = scanWith(new TreeCorruption(
                "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", TreeCorruption.Kind.PERMISSION_DENIED, 0));

        assertThat(snapshot.functions()).doesNotContainKey(PciAddress.parse("0000:01:00.0"));
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0/vendor", "cannot read: permission denied"));
    }

    @Test
    void deniedDirectoryOnTheWayIsReportedAsPermissionDeniedWithoutItsAbsolutePath() throws Exception {
        HostSnapshot snapshot = scanWith(new TreeCorruption("sys/bus", TreeCorruption.Kind.PERMISSION_DENIED, 0));

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/mdev/devices", "cannot stat bus/mdev: permission denied"),
                new ScanProblem("bus/pci/devices", "cannot stat bus/pci: permission denied"));
    }
}
