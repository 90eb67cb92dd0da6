package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
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
        DemoRun demo = new DemoRun(new PrintWriter(new StringWriter()), List.of(), options -> new Silent());

        assertThatThrownBy(() -> demo.run(work)).isInstanceOf(ServeFailure.class).hasMessage(
                "serve did not register with the kubelet simulator: not registered 1 time(s) within PT10S: [nvidia.com/TU104GL_TESLA_T4]; "
                        + "rejections: []; the plugin process (pid 4242) is running; its last output lines:\n  INFO serve: ...");
    }
}
