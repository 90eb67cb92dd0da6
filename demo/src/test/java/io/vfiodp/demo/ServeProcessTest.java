package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The demo's plugin process, played by a shell script that talks like serve: it logs its metrics
 * address, then acts on SIGTERM as the script says.
 */
class ServeProcessTest {

    private static final String SERVING = "echo 'INFO metrics on http://127.0.0.1:40123/metrics, probes /healthz and /readyz'; ";

    private static List<String> script(String script) {
        return List.of("sh", "-c", script);
    }

    /** Serves until SIGTERM, then runs {@code onTerm}. */
    private static List<String> servingUntilTerm(String onTerm) {
        // the trap first: the test may send SIGTERM as soon as the metrics line is out
        return script("trap '" + onTerm + "' TERM; " + SERVING + "while :; do sleep 0.05; done");
    }

    @Test
    void startReturnsTheMetricsPortServeLogs() throws Exception {
        try (ServeProcess serve = ServeProcess.start(servingUntilTerm("exit 0"), Map.of(), Optional.empty())) {
            assertThat(serve.metricsPort()).isEqualTo(40123);
        }
    }

    @Test
    void closeStopsTheProcessWithSigterm() throws Exception {
        ServeProcess serve = ServeProcess.start(servingUntilTerm("exit 0"), Map.of(), Optional.empty());

        serve.close();

        assertThat(ProcessHandle.of(serve.pid()).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(serve.state()).isEqualTo("the plugin process (pid " + serve.pid() + ") exited with status 0; its last output lines:\n"
                + "  INFO metrics on http://127.0.0.1:40123/metrics, probes /healthz and /readyz");
    }

    @Test
    void closeFailsNamingTheStatusAndTheLastLinesWhenServeDoesNotExitZero() throws Exception {
        ServeProcess serve = ServeProcess.start(servingUntilTerm("echo cannot remove the socket; exit 3"), Map.of(), Optional.empty());

        assertThatThrownBy(serve::close).isInstanceOf(ServeFailure.class).hasMessage(
                "serve did not stop cleanly on SIGTERM; the plugin process (pid " + serve.pid() + ") exited with status 3; its last output lines:\n"
                        + "  INFO metrics on http://127.0.0.1:40123/metrics, probes /healthz and /readyz\n"
                        + "  cannot remove the socket");
    }

    @Test
    void startFailsNamingTheStatusAndTheLastLinesWhenServeEndsBeforeServing() {
        assertThatThrownBy(() -> ServeProcess.start(script("echo 'serve: no kubelet.sock'; exit 1"), Map.of(), Optional.empty()))
                .isInstanceOf(ServeFailure.class)
                .hasMessageMatching("serve ended before serving; the plugin process \\(pid \\d+\\) exited with status 1; its last output lines:\n"
                        + "  serve: no kubelet.sock");
    }

    @Test
    void startFailsWhenServeEndsSilently() {
        assertThatThrownBy(() -> ServeProcess.start(script("exit 2"), Map.of(), Optional.empty()))
                .isInstanceOf(ServeFailure.class)
                .hasMessageMatching("serve ended before serving; the plugin process \\(pid \\d+\\) exited with status 2 and printed nothing");
    }

    @Test
    void stateKeepsOnlyTheLastTwentyLines() throws Exception {
        try (ServeProcess serve = ServeProcess.start(script("trap 'exit 0' TERM; for i in $(seq 1 30); do echo line $i; done; " + SERVING
                + "while :; do sleep 0.05; done"), Map.of(), Optional.empty())) {
            assertThat(serve.state().lines().skip(1).toList()).containsExactly(
                    "  line 12", "  line 13", "  line 14", "  line 15", "  line 16", "  line 17", "  line 18", "  line 19", "  line 20",
                    "  line 21", "  line 22", "  line 23", "  line 24", "  line 25", "  line 26", "  line 27", "  line 28", "  line 29",
                    "  line 30", "  INFO metrics on http://127.0.0.1:40123/metrics, probes /healthz and /readyz");
        }
    }

    @Test
    void forwardedOutputGetsEveryLineUpToTheExit() throws Exception {
        StringWriter forwarded = new StringWriter();
        ServeProcess serve = ServeProcess.start(servingUntilTerm("echo stopped; exit 0"), Map.of(), Optional.of(new PrintWriter(forwarded)));

        serve.close();

        assertThat(forwarded.toString()).isEqualTo("INFO metrics on http://127.0.0.1:40123/metrics, probes /healthz and /readyz\nstopped\n");
    }

    @Test
    void theDemosOwnSettingsReachThePluginProcess() throws Exception {
        StringWriter forwarded = new StringWriter();
        ServeProcess serve = ServeProcess.start(servingUntilTerm("echo \"api $KUBERNETES_MASTER\"; exit 0"),
                Map.of("KUBERNETES_MASTER", "http://127.0.0.1:40124"), Optional.of(new PrintWriter(forwarded)));

        serve.close();

        assertThat(forwarded.toString()).endsWith("api http://127.0.0.1:40124\n");
    }

    @Test
    void servesJvmGetsTheDemosUnsafeMemoryAccessUnlessItsOptionsSetOne() {
        assertThat(ServeProcess.unsafeMemoryAccess(Optional.of("allow"), List.of("-Xmx64m")))
                .containsExactly("--sun-misc-unsafe-memory-access=allow");
        assertThat(ServeProcess.unsafeMemoryAccess(Optional.of("warn"), List.of()))
                .containsExactly("--sun-misc-unsafe-memory-access=warn");
        assertThat(ServeProcess.unsafeMemoryAccess(Optional.of("allow"), List.of("--sun-misc-unsafe-memory-access=deny"))).isEmpty();
        assertThat(ServeProcess.unsafeMemoryAccess(Optional.empty(), List.of("-Xmx64m"))).isEmpty();
    }

    @Test
    void theNodesSettingsStayOutOfThePluginProcess() {
        assertThat(List.of("VFIO_DP_CONFIG", "VFIO_DP_MANAGE_VGPUS", "KUBECONFIG", "KUBERNETES_MASTER", "NODE_NAME", "JDK_JAVA_OPTIONS"))
                .allMatch(ServeProcess::isNodeSetting);
        assertThat(List.of("PATH", "HOME", "LANG", "TMPDIR", "KUBERNETES_SERVICE_HOST")).noneMatch(ServeProcess::isNodeSetting);
    }
}
