package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.node.HostScans;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} with kernel uevents from a fake kernel over a fixture copy ({@link TreeKernel}),
 * its periodic rescan an hour away: what the events tell reaches the kubelet through passes that
 * read only the devices named; lost events and a failing socket make passes read everything.
 */
class UeventServeTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String SHARED = "0000:1a:00.0";
    private static final String MATE = "0000:5e:00.0";

    @TempDir Path temp;
    private TreeKernel kernel;
    private KubeletSimulator kubelet;
    private ServeApp serve;
    private Watch watch;

    @BeforeEach
    void serve() throws Exception {
        HostTree host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        // the NVMe drive shares the T4's IOMMU group, both on vfio-pci: a driver change of the drive leaves /dev/vfio alone
        host.moveToGroup(MATE, 24);
        kernel = new TreeKernel(host);
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        kubelet = KubeletSimulator.start(plugins);
        ServeConfig config = ServeAppTest.config(host, plugins);
        serve = ServeApp.start(new ServeConfig(config.sysfsRoot(), config.devRoot(), config.procRoot(), config.pciIds(), config.config(), plugins, false,
                Optional.empty(), Optional.empty(), Optional.of(Duration.ofHours(1)), UeventMode.on, "", "", config.vgpu(), ServeConfig.Dra.OFF, config.version()),
                kernel.opener());
        serve.node().keepDepartedFor(Duration.ofMillis(200));
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
        watch = kubelet.watch(T4);
        watch.awaitUpdates(1, WAIT);
    }

    @AfterEach
    void stop() {
        if (serve != null) serve.close();
        if (kubelet != null) kubelet.close();
    }

    private ListAndWatchResponse awaitAfter(int seen, String device, String health) throws Exception {
        return ServedHost.awaitUpdateAfter(watch, seen, ServedHost.has(device, health), WAIT);
    }

    @Test
    void aGroupMatesDriverChangeReachesTheKubeletThroughUeventsAlone() throws Exception {
        assertThat(serve.scans().tracking()).isTrue();
        int seen = watch.updates().size();
        kernel.rebindFromVfio(MATE, "nvme");

        ListAndWatchResponse unhealthy = awaitAfter(seen, SHARED, "Unhealthy");
        // b2's group has no /dev/vfio node in the fixture
        assertThat(ServedHost.devices(unhealthy)).containsExactly("0000:1a:00.0 Unhealthy", "0000:1b:00.0 Healthy",
                "0000:b1:00.0 Healthy", "0000:b2:00.0 Unhealthy");
        assertThat(kernel.groupNode(24)).as("nothing in /dev changed").isTrue();

        seen = watch.updates().size();
        kernel.rebindToVfio(MATE);
        awaitAfter(seen, SHARED, "Healthy");

        HostScans.Counts counts = serve.scans().counts();
        assertThat(counts.full()).as("the first pass only").isEqualTo(1);
        assertThat(counts.incremental()).isBetween(2L, 4L);
    }

    @Test
    void aHotRemoveAndAHotAddReachTheKubelet() throws Exception {
        int seen = watch.updates().size();
        List<TreeKernel.Removed> gone = kernel.hotRemove(List.of("0000:1b:00.0"));
        assertThat(kernel.groupNode(25)).isFalse();

        ListAndWatchResponse removed = awaitAfter(seen, "0000:1b:00.0", "Unhealthy");
        assertThat(ServedHost.devices(removed)).contains("0000:1b:00.0 Unhealthy");
        // listed once more as Unhealthy, then dropped by a pass of its own: no event comes, the periodic rescan is an hour away
        ServedHost.awaitUpdateAfter(watch, seen, ServedHost.listing("0000:1a:00.0 Healthy", "0000:b1:00.0 Healthy", "0000:b2:00.0 Unhealthy"),
                WAIT);

        seen = watch.updates().size();
        kernel.hotAdd(gone);
        awaitAfter(seen, "0000:1b:00.0", "Healthy");
        assertThat(serve.scans().counts().full()).isEqualTo(1);
    }

    @Test
    void lostEventsMakeThePassReadEverything() throws Exception {
        int seen = watch.updates().size();
        kernel.silently(host -> host.bind(MATE, "nvme"));
        kernel.uevents.overflow();

        awaitAfter(seen, SHARED, "Unhealthy");
        assertThat(serve.scans().counts().full()).isEqualTo(2);
        assertThat(serve.scans().tracking()).isTrue();
    }

    @Test
    void aSocketThatFailsMakesEveryPassReadEverythingFromThenOn() throws Exception {
        int seen = watch.updates().size();
        kernel.silently(host -> host.bind(MATE, "nvme"));
        kernel.uevents.fail("receive on the uevent socket failed: errno 9 (Bad file descriptor)");

        awaitAfter(seen, SHARED, "Unhealthy");
        assertThat(serve.scans().tracking()).isFalse();
        assertThat(serve.scans().counts().full()).isEqualTo(2);
        await().atMost(WAIT).until(kernel.uevents::closed);
    }

    @Test
    void closingServeClosesTheSocketAndItsThread() {
        serve.close();

        assertThat(kernel.uevents.closed()).isTrue();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(UeventWiring.THREAD));
    }
}
