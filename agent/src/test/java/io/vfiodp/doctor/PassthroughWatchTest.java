package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.policy.config.LocalConfig;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassthroughWatchTest {

    @TempDir Path dir;

    private record Standing(boolean possible, List<String> failing) {}

    private final List<Standing> told = new ArrayList<>();
    private final PassthroughWatch watch = new PassthroughWatch(Nodes.settings("doctor-iommu-off", Optional.empty(), Nodes.NO_KUBELET),
            new VfioAvailability.Unavailable("/dev/vfio/vfio does not exist"), (possible, failing) -> told.add(new Standing(possible, failing)));

    private static ScanPolicySource.Evaluation pass(String node) throws IOException {
        PciIds ids = PciIds.parse("pci.ids", java.nio.file.Files.readAllBytes(Nodes.PCI_IDS));
        return new ScanPolicySource(new SysfsScanner(Nodes.root(node).resolve("sys"), Nodes.root(node).resolve("dev"))::scan,
                LocalConfig.of(Optional.empty()), ids).evaluate();
    }

    @Test
    void beforeAnyPassNothingIsSaid() {
        assertThat(watch.nothingToPassThrough()).isEmpty();
    }

    @Test
    void aPassWithNothingToPassThroughSaysWhyAndNamesTheFailingChecks() throws IOException {
        watch.passed(pass("doctor-iommu-off"));

        assertThat(watch.nothingToPassThrough().orElseThrow()).startsWith("iommu: off: the kernel made no IOMMU groups;")
                .endsWith("; passthrough: no device can be passed through: 0000:01:00.0: bound to nouveau: the host uses it (bind it to vfio-pci"
                        + " to pass it through)");
        assertThat(told).containsExactly(new Standing(false,
                List.of("iommu", "iommu.cmdline", "iommu.interrupt-remapping", "vfio.modules", "vfio.container", "kubelet.device-plugins",
                        "passthrough")));
    }

    @Test
    void aLaterPassWithADeviceClearsIt() throws IOException {
        watch.passed(pass("doctor-iommu-off"));
        watch.passed(pass("doctor-ready"));

        assertThat(watch.nothingToPassThrough()).isEmpty();
        assertThat(told.getLast()).isEqualTo(new Standing(true, List.of()));
    }

    @Test
    void aFirstPassWithADeviceIsReadyAtOnceAndIsExaminedWhenItsLineIsAskedFor() throws IOException {
        try (ServerSocketChannel kubelet = Nodes.kubeletSocket(dir.resolve("device-plugins"))) {
            PassthroughWatch ready = new PassthroughWatch(Nodes.settings("doctor-ready", Optional.empty(),
                    new KubeletPaths(dir.resolve("device-plugins"), false, dir.resolve("plugins_registry"), dir.resolve("cdi"))),
                    new VfioAvailability.Available(0, true, true), (possible, failing) -> told.add(new Standing(possible, failing)));

            ready.passed(pass("doctor-ready"));

            assertThat(ready.nothingToPassThrough()).isEmpty();
            assertThat(told).containsExactly(new Standing(true, List.of()));
            assertThat(ready.tellFirstPass()).hasValue("doctor: ready: 0 fail, 0 warn, 26 ok");
        }
    }

    @Test
    void theFirstPasssLineIsToldOnce() throws IOException {
        watch.passed(pass("doctor-ready"));
        watch.tellFirstPass();
        watch.passed(pass("doctor-ready"));

        assertThat(watch.tellFirstPass()).isEmpty();
    }

    @Test
    void aFirstPassWithNothingToPassThroughIsToldAtOnceNotAgainLater() throws IOException {
        watch.passed(pass("doctor-iommu-off"));
        watch.passed(pass("doctor-ready"));

        assertThat(watch.tellFirstPass()).isEmpty();
    }
}
