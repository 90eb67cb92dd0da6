package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.FixtureScans.pci;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.fixtures.SysfsTreeWriter;
import io.vfiodp.host.fixtures.Written;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan never follows a link out of its roots and always terminates. Each tree has a complete,
 * valid device just outside the root ({@code outside/}): following any escaping link would make
 * it show up as a function.
 */
class SysfsScannerConfinementTest {

    @TempDir
    Path tmp;
    private SysfsTreeWriter node;
    private Path outsideDevice;

    @BeforeEach
    void writeTrees() {
        SysfsTreeWriter outside = new SysfsTreeWriter(tmp.resolve("outside"));
        outsideDevice = t4(outside.rootBus(0, 0, 0).function("0000:01:00.0"), 7).dir();
        node = new SysfsTreeWriter(tmp.resolve("node"));
    }

    private static Written t4(io.vfiodp.host.fixtures.Function f, int group) {
        return f.ids(0x10de, 0x1eb8).subsystem(0x10de, 0x12a2).classCode(0x030200).revision(0xa1)
                .driver("vfio-pci").group(group).write();
    }

    private HostSnapshot scan() {
        return new SysfsScanner(node.sys(), node.dev()).scan();
    }

    @Test
    void relativeDeviceLinkClimbingAboveTheRootIsNotFollowed() {
        node.rawLink("bus/pci/devices/0000:01:00.0", "../../../../outside/sys/devices/pci0000:00/0000:01:00.0");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0", "link leads outside the scanned root"));
    }

    @Test
    void absoluteLinkTargetIsRefusedEvenWhenItExists() {
        node.rawLink("bus/pci/devices/0000:01:00.0", outsideDevice.toString());

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(new ScanProblem("bus/pci/devices/0000:01:00.0",
                "absolute link target '" + outsideDevice + "' (sysfs links are relative)"));
    }

    @Test
    void symlinkedDirectoryInTheMiddleOfATargetCannotLeadOut() {
        node.rawLink("devices/pci0000:00", "../../outside/sys/devices/pci0000:00");
        node.rawLink("bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:01:00.0");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0", "link leads outside the scanned root"));
    }

    @Test
    void driverLinkLeavingTheRootSkipsTheFunction() {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        node.remove("devices/pci0000:00/0000:01:00.0/driver")
                .rawLink("devices/pci0000:00/0000:01:00.0/driver", "../../../../outside/sys/bus/pci/drivers/vfio-pci");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0/driver", "link leads outside the scanned root"));
    }

    @Test
    void attributeFileThatIsALinkIsNotRead() {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        node.remove("devices/pci0000:00/0000:01:00.0/vendor")
                .rawLink("devices/pci0000:00/0000:01:00.0/vendor", "../../../../outside/sys/devices/pci0000:00/0000:01:00.0/vendor");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0/vendor", "is a symbolic link, not an attribute file"));
    }

    @Test
    void devDirectoryLinkingOutIsNotFollowed() throws IOException {
        Files.createDirectories(tmp.resolve("outside/dev/vfio"));
        Files.createFile(tmp.resolve("outside/dev/vfio/vfio"));
        Files.createFile(tmp.resolve("outside/dev/vfio/7"));
        node.devLink("vfio", "../../outside/dev/vfio");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.NONE);
        assertThat(snapshot.problems()).containsExactly(new ScanProblem("dev:vfio", "link leads outside the scanned root"));
    }

    @Test
    void groupNodeThatIsALinkDoesNotCount() {
        node.vfioNodes(3).devLink("vfio/7", "../../outside/dev/vfio/7");

        assertThat(scan().devNodes()).isEqualTo(DevNodes.of(true, Set.of(3), false, Set.of()));
    }

    @Test
    void linksWithParentStepsInTheMiddleResolveInsideTheRoot() {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        node.rawFile("devices/other/keep", "");
        node.remove("bus/pci/devices/0000:01:00.0")
                .rawLink("bus/pci/devices/0000:01:00.0", "../../../devices/other/../pci0000:00/./0000:01:00.0");

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions().keySet()).containsExactly(pci("0000:01:00.0"));
        assertThat(snapshot.problems()).isEmpty();
    }

    @Test
    void rootGivenThroughASymlinkIsScannedNormally() throws IOException {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        Path linkedRoot = Files.createSymbolicLink(tmp.resolve("sys-link"), node.sys());

        HostSnapshot snapshot = new SysfsScanner(linkedRoot, node.dev()).scan();

        assertThat(snapshot.functions().keySet()).containsExactly(pci("0000:01:00.0"));
    }

    @Test
    void linkToItselfEndsAsALoop() {
        node.rawLink("bus/pci/devices/0000:01:00.0", "0000:01:00.0");

        assertThat(scan().problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0", "symbolic link loop (more than 40 hops)"));
    }

    @Test
    void twoLinksPointingAtEachOtherEndAsALoop() {
        node.rawLink("bus/pci/devices/0000:01:00.0", "../../../devices/a")
                .rawLink("devices/a", "b")
                .rawLink("devices/b", "a");

        assertThat(scan().problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0", "symbolic link loop (more than 40 hops)"));
    }

    @Test
    void aLongButFiniteChainOfLinksResolves() {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        chain(30);

        HostSnapshot snapshot = scan();

        assertThat(snapshot.functions().keySet()).containsExactly(pci("0000:01:00.0"));
        assertThat(snapshot.problems()).isEmpty();
    }

    @Test
    void aChainLongerThanTheKernelsLimitIsTreatedAsALoop() {
        t4(node.rootBus(0, 0, 0).function("0000:01:00.0"), 3);
        chain(50);

        assertThat(scan().problems()).containsExactly(
                new ScanProblem("bus/pci/devices/0000:01:00.0", "symbolic link loop (more than 40 hops)"));
    }

    /** bus/pci/devices/0000:01:00.0 -> chain/l0 -> l1 -> ... -> the device directory. */
    private void chain(int links) {
        node.remove("bus/pci/devices/0000:01:00.0").rawLink("bus/pci/devices/0000:01:00.0", "../../../chain/l0");
        for (int i = 0; i < links - 1; i++) node.rawLink("chain/l" + i, "l" + (i + 1));
        node.rawLink("chain/l" + (links - 1), "../devices/pci0000:00/0000:01:00.0");
    }

    @Test
    void missingSysRootGivesOneProblemAndAnEmptySnapshot() {
        HostSnapshot snapshot = new SysfsScanner(tmp.resolve("nowhere"), node.dev()).scan();

        assertThat(snapshot.functions()).isEmpty();
        assertThat(snapshot.problems()).containsExactly(new ScanProblem(".", "sysfs root " + tmp.resolve("nowhere") + " does not exist"));
    }

    @Test
    void missingDevRootGivesNoNodesAndOneProblem() {
        HostSnapshot snapshot = new SysfsScanner(node.sys(), tmp.resolve("nodev")).scan();

        assertThat(snapshot.devNodes()).isEqualTo(DevNodes.NONE);
        assertThat(snapshot.problems()).containsExactly(new ScanProblem("dev:.", "dev root " + tmp.resolve("nodev") + " does not exist"));
    }
}
