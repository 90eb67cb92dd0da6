package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoRunTest {

    /** A plugin side that serves nothing: the demo waits its 10 s for the registration. */
    private static final class Silent implements DemoRun.RunningServe {
        @Override
        public long pid() {
            return 4242;
        }

        @Override
        public int metricsPort() {
            return 40123;
        }

        @Override
        public String state() {
            return "the plugin process (pid 4242) is running; its last output lines:\n  INFO serve: ...";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aPluginThatDoesNotRegisterEndsTheDemoWithItsState(@TempDir Path work) {
        DemoRun demo = new DemoRun(new PrintWriter(new StringWriter()), List.of(), (options, env) -> new Silent(),
                new DraDemoPart.Skipped("not reached"), DemoRun.Endpoints.PROBES_AND_METRICS, Duration.ofSeconds(1));

        assertThatThrownBy(() -> demo.run(work)).isInstanceOf(ServeFailure.class).hasMessage(
                "serve did not register with the kubelet simulator: not registered 1 time(s) within PT1S: [nvidia.com/TU104GL_TESLA_T4]; "
                        + "rejections: []; the plugin process (pid 4242) is running; its last output lines:\n  INFO serve: ...");
    }

    @Test
    void withProbesAloneTheDemoAsksHealthzAndReadyzButNotMetrics(@TempDir Path work) throws Exception {
        StringWriter out = new StringWriter();

        new DemoRun(new PrintWriter(out, true), List.of(), ServeProcess.starter(List.of(), Optional.empty(), "io.vfiodp.cli.Main"),
                new DraDemoPart.Skipped("not in this test"), DemoRun.Endpoints.PROBES).run(work);

        assertThat(out.toString()).containsPattern("\n== Health \\(what serve's HTTP endpoints answer, on http://127\\.0\\.0\\.1:\\d+\\)\n"
                + "  GET /healthz  200  ok: reconcile loop answered in \\d+ ms\n"
                + "  GET /readyz   200  ready: 1 resource\\(s\\) registered with the kubelet\n"
                + "\n== One allocation per resource").doesNotContain("GET /metrics");
    }

    @Test
    void withoutTheMockApiServerTheDraPartSaysInOneLineWhyItIsSkipped(@TempDir Path work) throws Exception {
        // no parent but the JDK's own classes: neither the mock server nor anything else of the class path
        DraDemoPart part = DraDemoPart.onClassPathOf(new ClassLoader(null) {});
        StringWriter out = new StringWriter();

        part.run(new DraDemoPart.Setting(new PrintWriter(out, true), work, work, (options, env) -> new Silent(), Optional.empty(),
                DemoRun.Endpoints.PROBES_AND_METRICS));

        assertThat(part).isInstanceOf(DraDemoPart.Skipped.class);
        assertThat(out.toString()).isEqualTo("\n== DRA: skipped: fabric8's mock API server is not on the class path (the image and `java -jar`"
                + " leave it out; bin/vfio-device-plugin adds demo/target/demo-lib, which ./mvnw package makes)\n");
    }

    @Test
    void withTheMockApiServerTheDraPartRuns() {
        assertThat(DraDemoPart.onClassPathOf(DemoRunTest.class.getClassLoader())).isNotInstanceOf(DraDemoPart.Skipped.class);
    }
}
