package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.cli.Main;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.serve.HostTree;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What {@code serve} does when its directories fail it (docs/operating.md, "When serve fails"): a mistake no
 * retry mends stops it at once with one line naming the path and the problem; a problem one
 * resource or one feature has is logged once and retried, and everything else keeps running.
 * Read-only and full file systems are real ones, made in a private mount namespace
 * ({@link PrivateMounts}).
 */
class ServeFailuresTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");
    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String GPUS = "nvidia.com/GH100_H100_SXM5_80GB";
    private static final String NVSWITCH = "nvidia.com/GH100_H100_NVSWITCH";

    @TempDir Path temp;

    private static String log(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static List<String> lines(Path file, String containing) throws IOException {
        return log(file).lines().filter(l -> l.contains(containing)).toList();
    }

    /** Waits for {@code serve} to exit; returns its status. */
    private static int exitOf(Process p) throws InterruptedException {
        assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("serve exited").isTrue();
        return p.exitValue();
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
    }

    @Test
    void readOnlyDevicePluginDirStopsServeAtOnceNamingTheDirAndTheMount() throws Exception {
        long t0 = System.nanoTime();
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        Path log = temp.resolve("serve.log");
        List<String> readOnly = PrivateMounts.wrapper("mount --bind '" + plugins + "' '" + plugins + "' && mount -o remount,bind,ro '" + plugins + "'");

        Process serve = ServeJvm.start(readOnly, FIXTURES.resolve("t4-numa"), plugins, log);

        assertThat(exitOf(serve)).isEqualTo(1);
        assertThat(lines(log, "vfio-device-plugin serve:")).containsExactly("vfio-device-plugin serve: device-plugin dir " + plugins
                + " is not writable (Read-only file system): the plugin creates its sockets there (mount the kubelet's"
                + " /var/lib/kubelet/device-plugins read-write)");
        System.out.printf("read-only device-plugin dir: serve exited in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void devicePluginDirTooLongForAnySocketStopsServeAtOnceNamingTheDir() throws Exception {
        Path deep = Files.createDirectories(temp.resolve("d".repeat(100)));
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));

        int code = cl.execute("serve", "--sysfs-root", FIXTURES.resolve("t4-numa/sys").toString(), "--dev-root",
                FIXTURES.resolve("t4-numa/dev").toString(), "--device-plugin-dir", deep.toString(), "--kubevirt", "off", "--metrics-address", "");

        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("vfio-device-plugin serve: device-plugin dir " + deep
                + " is too long: a socket path in it cannot stay within 107 bytes (the directory's path has " + deep.toString().length()
                + " bytes; at most 81 leave room for the socket of every resource name)" + System.lineSeparator());
        assertThat(Leaks.sockets(deep)).isEmpty();
    }

    @Test
    void socketNamesThatWouldNotFitAreShortenedAndEveryResourceIsServed() throws Exception {
        // Long enough that no plain socket name of the hgx node fits in 107 bytes, short enough for a shortened one.
        String base = temp.toAbsolutePath().toString();
        Path dir = Files.createDirectories(temp.resolve("k".repeat(Math.max(1, 107 - base.length() - 1 - 30))));
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir);
             ServedPlugins runtime = ServedPlugins.start(PluginSettings.of(dir), Duration.ofHours(1), new ScanPolicySource(
                     new io.vfiodp.host.scan.SysfsScanner(FIXTURES.resolve("hgx-8gpu/sys"), FIXTURES.resolve("hgx-8gpu/dev"))::scan,
                     java.util.Optional.empty(), io.vfiodp.host.pciids.PciIds.bundled()))) {
            kubelet.awaitRegistrations(List.of(GPUS, NVSWITCH), 1, WAIT);

            List<String> endpoints = kubelet.registrations().stream().map(KubeletSimulator.Registration::endpoint).toList();
            assertThat(endpoints).allSatisfy(e -> {
                assertThat(dir.resolve(e).toString().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(107);
                assertThat(e).startsWith("vfio-dp-").endsWith(".sock");
            });
            assertThat(endpoints).contains(SocketNames.forResource(dir, ResourceName.of(GPUS)), SocketNames.forResource(dir, ResourceName.of(NVSWITCH)));
            assertThat(endpoints).doesNotContain("vfio-dp-nvidia.com_GH100_H100_SXM5_80GB.sock");
            assertThat(kubelet.allocate(GPUS, List.of(List.of("0000:18:00.0"))).getContainerResponsesCount()).isEqualTo(1);
        }
    }

    @Test
    void resourceWhoseSocketPathIsBlockedIsRetriedWithOneErrorWhileTheOthersServe() throws Exception {
        long t0 = System.nanoTime();
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        Path blocked = plugins.resolve(SocketNames.forResource(plugins, ResourceName.of(NVSWITCH)));
        Files.createDirectories(blocked.resolve("left-by-someone"));
        Path log = temp.resolve("serve.log");
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            Process serve = ServeJvm.start(List.of(), List.of(ServeJvm.PLUGIN_DEBUG_LOG), FIXTURES.resolve("hgx-8gpu"), plugins, log);
            try {
                kubelet.awaitRegistrations(List.of(GPUS), 1, WAIT);
                URI metrics = metricsUri(log);
                // Attempts after 0, 200 and 600 ms (backoff 200 ms doubling); each leaves a debug line.
                await("two failed attempts to serve " + NVSWITCH).atMost(WAIT).untilAsserted(() -> assertThat(
                        lines(log, NVSWITCH + ": server did not start on " + blocked)).as("debug lines of failed starts").hasSizeGreaterThanOrEqualTo(2));

                assertThat(kubelet.allocate(GPUS, List.of(List.of("0000:18:00.0"))).getContainerResponsesCount()).isEqualTo(1);
                assertThat(kubelet.registrations()).extracting(KubeletSimulator.Registration::resourceName).containsExactly(GPUS);
                assertThat(lines(log, "cannot serve")).containsExactly(timestampless(lines(log, "cannot serve"), NVSWITCH + ": cannot serve on "
                        + blocked + ": a directory that is not empty is in its place; other resources are not affected; retrying (backoff 200 to 10000 ms)"));
                assertThat(get(metrics.resolve("/healthz")).statusCode()).isEqualTo(200);
                HttpResponse<String> notReady = get(metrics.resolve("/readyz"));
                assertThat(notReady.statusCode()).isEqualTo(503);
                assertThat(notReady.body()).isEqualTo("not registered with the kubelet: " + NVSWITCH + "\n");

                io.vfiodp.host.fixtures.Trees.deleteRecursively(blocked);

                kubelet.awaitRegistrations(List.of(NVSWITCH), 1, WAIT);
                assertThat(readyWithin(metrics, WAIT).body()).isEqualTo("ready: 2 resource(s) registered with the kubelet\n");
                assertThat(lines(log, "can serve on")).singleElement().asString().contains(
                        "INFO " + NVSWITCH + ": can serve on " + blocked + " again after ");
                assertThat(failedAttempts(log)).as("attempts that failed, with one log line").isGreaterThanOrEqualTo(2);
            } finally {
                stop(serve);
            }
        }
        System.out.printf("blocked socket path: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void fullStateDirPausesVgpuManagementWithOneErrorAndEveryResourceIsStillServed() throws Exception {
        long t0 = System.nanoTime();
        HostTree host = HostTree.copy(FIXTURES.resolve("t4-vgpu"), temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        Path state = Files.createDirectories(temp.resolve("state"));
        Path config = Files.writeString(temp.resolve("config.yaml"), """
                permittedHostDevices:
                  mediatedDevices:
                  - {mdevNameSelector: GRID T4-1Q, resourceName: nvidia.com/GRID_T4-1Q, externalResourceProvider: true}
                  - {mdevNameSelector: GRID T4-2Q, resourceName: nvidia.com/GRID_T4-2Q, externalResourceProvider: true}
                mediatedDevicesConfiguration:
                  mediatedDeviceTypes: [GRID_T4-1Q]
                """);
        Path log = temp.resolve("serve.log");
        List<String> full = PrivateMounts.wrapper("mount -t tmpfs -o size=64k tmpfs '" + state + "' && (cat /dev/zero > '" + state
                + "/filler' 2>/dev/null || true)");
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            Process serve = ServeJvm.start(full, temp.resolve("node"), plugins, log, "--manage-vgpus", "--state-dir", state.toString(),
                    "--config", config.toString(), "--pod-resources-socket", temp.resolve("no-kubelet/pod-resources.sock").toString(),
                    "--rescan-interval", "300ms");
            try {
                kubelet.awaitRegistrations(List.of("nvidia.com/GRID_T4-1Q", "nvidia.com/GRID_T4-2Q"), 1, WAIT);
                // Five more passes, each of which tries the layout again before its scan.
                URI metrics = metricsUri(log);
                long passes = scans(metrics);
                await("five more passes").atMost(WAIT).untilAsserted(() -> assertThat(scans(metrics)).as("scans").isGreaterThanOrEqualTo(passes + 5));

                assertThat(serve.isAlive()).isTrue();
                assertThat(kubelet.allocate("nvidia.com/GRID_T4-2Q", List.of(List.of("e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64")))
                        .getContainerResponsesCount()).isEqualTo(1);
                assertThat(lines(log, "vGPU layout management paused")).singleElement().asString().endsWith(
                        "ERROR vGPU layout management paused: cannot write state file " + state.resolve("vgpu-owned.json")
                                + ": No space left on device (devices are still served)");
                assertThat(host.sys()).isDirectory();
            } finally {
                stop(serve);
            }
        }
        System.out.printf("full state dir: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    private static String timestampless(List<String> lines, String message) {
        return lines.isEmpty() ? message : lines.getFirst().substring(0, lines.getFirst().indexOf(" WARN ") + 6) + message;
    }

    private static URI metricsUri(Path log) {
        Pattern p = Pattern.compile("metrics on (http://[0-9.]+:[0-9]+)/metrics");
        return await("serve logs its metrics address").atMost(WAIT).until(() -> {
            Matcher m = p.matcher(log(log));
            return m.find() ? URI.create(m.group(1)) : null;
        }, Objects::nonNull);
    }

    /** /readyz once it answers 200 (the plugin learns of its registration a moment after the kubelet made it); fails with its last answer. */
    private static HttpResponse<String> readyWithin(URI metrics, Duration timeout) {
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        await("/readyz answers 200").atMost(timeout).untilAsserted(() -> {
            last.set(get(metrics.resolve("/readyz")));
            assertThat(last.get().statusCode()).as("/readyz, answering " + last.get().body()).isEqualTo(200);
        });
        return last.get();
    }

    /** Passes that got to their scan, by serve's own count. */
    private static long scans(URI metrics) throws Exception {
        Matcher m = Pattern.compile("(?m)^vfio_dp_scan_duration_seconds_count ([0-9]+)$").matcher(get(metrics.resolve("/metrics")).body());
        assertThat(m.find()).as("vfio_dp_scan_duration_seconds_count in /metrics").isTrue();
        return Long.parseLong(m.group(1));
    }

    private static int failedAttempts(Path log) throws IOException {
        Matcher m = Pattern.compile("again after ([0-9]+) failed attempt").matcher(log(log));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
