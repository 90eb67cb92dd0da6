package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.ManualClock;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve} as its own JVM, stopped the way Kubernetes stops it: SIGTERM. */
class ServeProcessTest {

    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";

    @TempDir Path dir;

    @Test
    void startingRunsNoOtherProgram() throws Exception {
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
            Process serve = ServeJvm.start(T4_NUMA, dir, dir.resolve("serve.log"));
            try {
                kubelet.awaitRegistrations(List.of(T4), 1, Duration.ofSeconds(20));

                // The JDK starts its "process reaper" thread with the first child process and keeps it for a
                // minute: JNA used to run ldconfig -p here when the VFIO check loaded libc.
                assertThat(threadNames(serve.pid())).isNotEmpty().doesNotContain("process reaper");
            } finally {
                serve.destroyForcibly().waitFor();
            }
        }
    }

    private static List<String> threadNames(long pid) throws Exception {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            return tasks.map(t -> {
                try {
                    return Files.readString(t.resolve("comm")).strip();
                } catch (java.io.IOException gone) {
                    return "";
                }
            }).filter(n -> !n.isEmpty()).toList();
        }
    }

    /**
     * The kubelet takes a last empty list literally and forgets the devices at once, but keeps a
     * resource whose stream ended for 5 minutes with its devices Unhealthy (kubernetes/kubernetes
     * pkg/kubelet/cm/devicemanager/manager.go at 7510f32987: PluginDisconnected and GetCapacity;
     * endpointStopGracePeriod, types.go at 28f88c77b6): that grace hides a restart or an upgrade of
     * the DaemonSet. So SIGTERM ends the streams without an empty list.
     */
    @Test
    void sigtermEndsTheStreamsWithoutAnEmptyListSoTheKubeletKeepsTheCapacityForItsGrace() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir, clock)) {
            Path log = dir.resolve("serve.log");
            Process serve = ServeJvm.start(T4_NUMA, dir, log);
            try {
                kubelet.awaitRegistrations(List.of(T4), 1, Duration.ofSeconds(30));
                Watch watch = kubelet.watch(T4);
                watch.awaitUpdates(1, Duration.ofSeconds(30));
                // t4-numa has no /dev/vfio/65, the group node of 0000:b2:00.0: it is Unhealthy
                assertThat(kubelet.resource(T4).map(r -> r.capacity() + "/" + r.allocatable())).contains("4/3");

                int linesBefore = Files.readAllLines(log).size();
                serve.destroy();
                assertThat(serve.waitFor(30, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();

                assertThat(serve.exitValue()).isZero();
                // nothing it stopped was given up on after a timeout
                List<String> lines = Files.readAllLines(log);
                assertThat(lines.subList(linesBefore, lines.size())).as("what serve logged as it stopped")
                        .noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR "));
                assertThat(watch.awaitEnd(Duration.ofSeconds(30)).isOk()).isTrue();
                assertThat(watch.updates()).extracting(ListAndWatchResponse::getDevicesCount).containsExactly(4);
                assertThat(kubelet.resource(T4).map(r -> r.capacity() + "/" + r.allocatable())).contains("4/0");
                assertThat(kubelet.resource(T4).orElseThrow().unhealthy())
                        .containsExactlyInAnyOrder("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");
                clock.advance(Duration.ofMinutes(5));
                assertThat(kubelet.resource(T4).map(r -> r.capacity() + "/" + r.allocatable())).contains("4/0");
                clock.advance(Duration.ofSeconds(1));
                assertThat(kubelet.resources()).isEmpty();
                assertThat(Leaks.sockets(dir)).containsExactly("kubelet.sock");
            } finally {
                serve.destroyForcibly().waitFor();
            }
        }
    }
}
