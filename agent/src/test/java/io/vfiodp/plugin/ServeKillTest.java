package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve} as its own JVM, killed with SIGKILL while the kubelet holds its ListAndWatch stream, then started again. */
class ServeKillTest {

    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String T4_SOCKET = "vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock";
    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir Path dir;

    private Process serve(Path log) throws IOException {
        return ServeJvm.start(T4_NUMA, dir, log);
    }

    @Test
    void killedMidStreamAndStartedAgainAdvertisesTheSameDevicesOnAFreshSocket() throws Exception {
        long t0 = System.nanoTime();
        Path plugins = Files.createDirectories(dir);
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            Process first = serve(dir.resolve("first.log"));
            ListAndWatchResponse before;
            Optional<FileIdentity> firstSocket;
            Watch stream;
            try {
                kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
                stream = kubelet.watch(T4);
                before = stream.awaitUpdate(u -> true, WAIT);
                firstSocket = FileIdentity.of(dir.resolve(T4_SOCKET));
            } finally {
                first.destroyForcibly();
                assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(first.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
            assertThat(stream.awaitEnd(WAIT).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(FileIdentity.of(dir.resolve(T4_SOCKET))).as("the killed run's socket is left behind").isEqualTo(firstSocket);

            Process second = serve(dir.resolve("second.log"));
            try {
                kubelet.awaitRegistrations(List.of(T4), 2, WAIT);
                ListAndWatchResponse after = kubelet.watch(T4).awaitUpdate(u -> true, WAIT);

                assertThat(after).isEqualTo(before);
                assertThat(before.getDevicesCount()).isEqualTo(4);
                assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::endpoint).containsExactly(T4_SOCKET, T4_SOCKET);
                assertThat(Leaks.sockets(dir)).containsExactly("kubelet.sock", T4_SOCKET);
                assertThat(FileIdentity.of(dir.resolve(T4_SOCKET))).isPresent().isNotEqualTo(firstSocket);
                assertThat(kubelet.allocate(T4, List.of(List.of("0000:1a:00.0"))).getContainerResponses(0).getEnvsMap())
                        .containsEntry("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:1a:00.0");
            } finally {
                second.destroy();
                assertThat(second.waitFor(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(second.exitValue()).isZero();
        }
        System.out.printf("SIGKILL and restart of serve: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }
}
