package io.vfiodp.deploy;

import static org.awaitility.Awaitility.await;

import io.vfiodp.plugin.ServeJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code serve} in a JVM of its own with exactly the environment a test gives it (nothing of the
 * build's: no kubeconfig, no node name, no {@code VFIO_DP_*}), as a container would start it. Its
 * output goes to a file the test reads as lines.
 */
final class ServeChild implements AutoCloseable {

    private static final Pattern METRICS_LINE = Pattern.compile("metrics on http://\\S+:(\\d+)/metrics");
    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration START_WAIT = Duration.ofSeconds(120);

    private final Process process;
    private final Path log;

    private ServeChild(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * @param args serve's command line after the main class ({@code serve ...}, or nothing for the default command)
     * @param env  the process' whole environment besides {@code PATH}, {@code HOME} (a fresh directory) and locale
     */
    static ServeChild start(List<String> args, Map<String, String> env, Path dir) throws IOException {
        Path log = dir.resolve("serve.log");
        Path home = Files.createDirectories(dir.resolve("home"));
        ProcessBuilder builder = new ProcessBuilder(ServeJvm.command(args)).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(k -> !(k.equals("PATH") || k.equals("LANG") || k.startsWith("LC_")));
        environment.put("HOME", home.toString());
        environment.putAll(env);
        return new ServeChild(builder.start(), log);
    }

    /** Every line serve printed so far. */
    List<String> lines() {
        try {
            return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The port of serve's HTTP endpoints, once it logged it. */
    int metricsPort() {
        return await().atMost(START_WAIT).pollInterval(Duration.ofMillis(50))
                .failFast("serve exited", () -> !process.isAlive())
                .until(this::loggedPort, Optional::isPresent).orElseThrow();
    }

    private Optional<Integer> loggedPort() {
        for (String line : lines()) {
            Matcher m = METRICS_LINE.matcher(line);
            if (m.find()) return Optional.of(Integer.parseInt(m.group(1)));
        }
        return Optional.empty();
    }

    /** GET {@code path} from serve's HTTP endpoints. */
    String get(String path) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort() + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + r.body());
            return r.body();
        }
    }

    String describe() {
        return "serve (" + (process.isAlive() ? "running" : "exited " + process.exitValue()) + "), output:\n  "
                + String.join("\n  ", lines());
    }

    /** The exit status of a serve that ends by itself (it could not start). */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) throw new AssertionError("serve still runs; " + describe());
        return process.exitValue();
    }

    /** SIGTERM, as the kubelet stops a pod; serve must exit 0. */
    @Override
    public void close() {
        process.toHandle().destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("serve did not stop within 20 s of SIGTERM; " + describe());
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return;
        }
        if (process.exitValue() != 0) throw new AssertionError("serve exited " + process.exitValue() + " on SIGTERM; " + describe());
    }

    /** Lines containing {@code fragment}. */
    List<String> linesWith(String fragment) {
        List<String> out = new ArrayList<>();
        for (String l : lines()) if (l.contains(fragment)) out.add(l);
        return out;
    }
}
