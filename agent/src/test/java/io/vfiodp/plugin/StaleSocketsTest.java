package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.kubelet.FileIdentity;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a start does with the socket files it finds: a killed run leaves its sockets (nobody
 * listens on them any more), as a bound and closed unix socket does here.
 */
class StaleSocketsTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String T4_SOCKET = "vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path dir;
    private KubeletSimulator kubelet;
    private ServedPlugins runtime;

    @BeforeEach
    void startKubelet() throws Exception {
        kubelet = KubeletSimulator.start(dir);
    }

    @AfterEach
    void stop() {
        if (runtime != null) runtime.close();
        kubelet.close();
    }

    private void startPlugin() throws Exception {
        runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), () -> state(resource(T4, pci("0000:3b:00.0", 12, 0))));
        kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
    }

    /** A socket file with nobody listening: what SIGKILL leaves (Java, like the kernel, does not unlink it on close). */
    private Path deadSocket(String name) throws IOException {
        Path p = dir.resolve(name);
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(p));
        }
        return p;
    }

    @Test
    void deadSocketOfAResourceThisRunDoesNotServeIsRemovedAtStart() throws Exception {
        Path gone = deadSocket("vfio-dp-nvidia.com_GA100_A100_PCIE_40GB.sock");

        startPlugin();

        assertThat(gone).doesNotExist();
        assertThat(Leaks.sockets(dir)).containsExactly("kubelet.sock", T4_SOCKET);
    }

    @Test
    void deadSocketOfAServedResourceIsReplacedByALiveOne() throws Exception {
        Path stale = deadSocket(T4_SOCKET);
        var staleIdentity = FileIdentity.of(stale);

        startPlugin();

        assertThat(FileIdentity.of(stale)).isPresent().isNotEqualTo(staleIdentity);
        assertThat(kubelet.allocate(T4, List.of(List.of("0000:3b:00.0"))).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void socketOfOursThatAnotherRunningPluginListensOnIsLeftAlone() throws Exception {
        Path other = dir.resolve("vfio-dp-example.com_OTHER.sock");
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            live.bind(UnixDomainSocketAddress.of(other));

            startPlugin();

            assertThat(other).exists();
        } finally {
            Files.deleteIfExists(other);
        }
    }

    @Test
    void deadSocketsOfOtherPluginsAreLeftAlone() throws Exception {
        Path kubevirt = deadSocket("kubevirt-nvidia.com_TU104GL_TESLA_T4.sock");

        startPlugin();

        assertThat(kubevirt).exists();
    }
}
