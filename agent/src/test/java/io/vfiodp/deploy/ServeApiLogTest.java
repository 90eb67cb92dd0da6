package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.kube.KubeApiDetection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code serve} says about the Kubernetes API and Node events, run as a container runs it
 * (a JVM of its own with only the environment given): the lines name the options given and what
 * the environment held.
 */
class ServeApiLogTest {

    /** Far above serve's start on a fixture; the lines come before the first scan. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The JVM takes user.home from the user's passwd entry, not from HOME: the child's is this JVM's. */
    private static final Path USER_HOME = Path.of(System.getProperty("user.home"));

    @TempDir Path temp;

    private ServeChild serve(Map<String, String> env, String... options) throws IOException {
        Path plugins = Files.createDirectories(temp.resolve("device-plugins"));
        List<String> args = new ArrayList<>(List.of("serve", "--sysfs-root", SysfsFixtures.sys("t4-numa").toString(),
                "--dev-root", SysfsFixtures.dev("t4-numa").toString(), "--device-plugin-dir", plugins.toString(),
                "--metrics-address", "127.0.0.1:0", "--uevents", "off"));
        args.addAll(List.of(options));
        return ServeChild.start(args, env, temp);
    }

    /** The first line with {@code fragment}, once serve is up (a SIGTERM before its handler is set would end it with 143). */
    private static String awaitLine(ServeChild serve, String fragment) {
        serve.metricsPort();
        return await().atMost(WAIT).until(() -> serve.linesWith(fragment), lines -> !lines.isEmpty()).getFirst();
    }

    @Test
    void withKubeVirtOffAndANodeNameTheLineOnNodeEventsNamesTheOptionsGiven() throws IOException {
        try (ServeChild serve = serve(Map.of(), "--kubevirt", "off", "--node-name", "gpu-node-1")) {
            assertThat(awaitLine(serve, "not posted as Node events")).endsWith("device health changes are logged, not posted as Node events:"
                    + " with --kubevirt off and no --dra-resources serve does not use the Kubernetes API (--node-name gpu-node-1 is given)");
        }
    }

    @Test
    void withKubeVirtAutoAndAnEmptyServiceHostTheLineSaysWhatWasFound() throws IOException {
        Map<String, String> env = Map.of("KUBERNETES_SERVICE_HOST", "");
        try (ServeChild serve = serve(env, "--kubevirt", "auto")) {
            String line = awaitLine(serve, "--kubevirt auto: no Kubernetes API configured");

            assertThat(line).contains("KUBERNETES_SERVICE_HOST").endsWith("--kubevirt auto: no Kubernetes API configured ("
                    + KubeApiDetection.absence(env, USER_HOME, KubeApiDetection.SERVICE_ACCOUNT) + "); serving the default NVIDIA naming only");
        }
    }
}
