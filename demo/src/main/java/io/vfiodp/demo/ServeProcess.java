package io.vfiodp.demo;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's plugin side: {@code serve} in a JVM of its own, next to the demo's kubelet simulator,
 * as the kubelet and the plugin are two processes on a node. The image's build trains its class
 * archive on this process alone, so the archive holds what {@code serve} loads and nothing the
 * demo's own side (inventory, simulator, printers) needs.
 */
public final class ServeProcess implements DemoRun.RunningServe {

    /** What serve logs (at INFO) once its endpoints listen. */
    private static final Pattern METRICS_LINE = Pattern.compile("metrics on http://\\S+:(\\d+)/metrics");
    private static final int KEPT_LINES = 20;
    /** The system property the JVM sets from {@link #UNSAFE_MEMORY_ACCESS_OPTION} (JDK 23+). */
    static final String UNSAFE_MEMORY_ACCESS = "sun.misc.unsafe.memory.access";
    static final String UNSAFE_MEMORY_ACCESS_OPTION = "--sun-misc-unsafe-memory-access";
    /** A JVM start with serve's scan and servers; generous for a busy 2-core build machine. */
    private static final Duration START_WAIT = Duration.ofSeconds(60);
    private static final Duration STOP_WAIT = Duration.ofSeconds(20);
    /**
     * A JVM that writes an AOT cache or a dynamic archive as it exits (the image's training run)
     * assembles it after SIGTERM, in a second JVM on JDK 25: on a busy 2-core build machine that
     * alone took longer than {@link #STOP_WAIT}, and the image's build failed.
     */
    private static final Duration ARCHIVING_STOP_WAIT = Duration.ofMinutes(5);
    private static final List<String> ARCHIVE_OUTPUT_OPTIONS = List.of("-XX:AOTCacheOutput=", "-XX:ArchiveClassesAtExit=");

    private final Process process;
    private final Thread reader;
    private final ArrayDeque<String> lastLines = new ArrayDeque<>();
    private final CompletableFuture<Integer> metricsPort = new CompletableFuture<>();

    private final Duration stopWait;

    private ServeProcess(Process process, Optional<PrintWriter> forward, Duration stopWait) {
        this.process = process;
        this.stopWait = stopWait;
        this.reader = new Thread(() -> read(forward), "vfio-dp-demo-serve-output");
        reader.start();
    }

    /**
     * How the demo starts serve: this JVM's java, {@code javaOptions}, then this JVM's jar or
     * class path (target/classes in tests).
     *
     * @param forward where the plugin's output lines go as they come; without it they are kept
     *                for an error only
     */
    public static DemoRun.ServeStarter starter(List<String> javaOptions, Optional<PrintWriter> forward, String mainClass) {
        return (serveOptions, env) -> start(command(javaOptions, serveOptions, mainClass), env, forward);
    }

    private static List<String> command(List<String> javaOptions, List<String> serveOptions, String mainClass) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(unsafeMemoryAccess(Optional.ofNullable(System.getProperty(UNSAFE_MEMORY_ACCESS)), javaOptions));
        command.addAll(javaOptions);
        String classPath = System.getProperty("java.class.path");
        String first = classPath.split(File.pathSeparator, 2)[0];
        // From the jar, by the jar's path as this JVM got it, which an AOT cache made by the plugin
        // process checks again when the launcher starts serve: the launcher's -cp JAR and this -jar JAR
        // are the same class path. -jar, as the jar's manifest enables native access for netty and JNA
        // on a JDK whose runtime does not (a checkout's; the image's runtime does both ways). The jar
        // alone: what follows it (bin/vfio-device-plugin's demo-lib, the demo's mock API server) is the
        // demo's, not serve's.
        command.addAll(isThisJar(first, mainClass) ? List.of("-jar", first) : List.of("-cp", classPath, mainClass));
        command.add("serve");
        command.addAll(serveOptions);
        return command;
    }

    /**
     * This JVM's {@code --sun-misc-unsafe-memory-access} for serve's, unless {@code javaOptions} set one. protobuf's
     * lite runtime, which the generated messages use, cannot work without sun.misc.Unsafe's memory access: JDK 24+
     * warns at its first use unless it is allowed, and with it denied lite messages throw. bin/vfio-device-plugin
     * allows it for the demo (and the image's runtime for every JVM it starts, with the option built in): serve
     * gets the same.
     *
     * @param demoSetting this JVM's {@value #UNSAFE_MEMORY_ACCESS} property, absent before JDK 23 or when no
     *                    option set it
     */
    static List<String> unsafeMemoryAccess(Optional<String> demoSetting, List<String> javaOptions) {
        if (javaOptions.stream().anyMatch(o -> o.startsWith(UNSAFE_MEMORY_ACCESS_OPTION))) return List.of();
        return demoSetting.map(v -> List.of(UNSAFE_MEMORY_ACCESS_OPTION + "=" + v)).orElse(List.of());
    }

    private static boolean isThisJar(String classPath, String mainClass) throws IOException {
        if (!classPath.endsWith(".jar") || !Files.isRegularFile(Path.of(classPath))) return false;
        try (JarFile jar = new JarFile(classPath)) {
            Manifest manifest = jar.getManifest();
            return manifest != null && mainClass.equals(manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS));
        }
    }

    /** Starts {@code command} with {@code env} added to the environment and returns once it logs its metrics address. */
    static ServeProcess start(List<String> command, Map<String, String> env, Optional<PrintWriter> forward) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(new File("/dev/null"));
        builder.environment().keySet().removeIf(ServeProcess::isNodeSetting);
        builder.environment().putAll(env);
        boolean archives = command.stream().anyMatch(o -> ARCHIVE_OUTPUT_OPTIONS.stream().anyMatch(o::startsWith));
        ServeProcess serve = new ServeProcess(builder.start(), forward, archives ? ARCHIVING_STOP_WAIT : STOP_WAIT);
        serve.awaitMetricsPort();
        return serve;
    }

    /**
     * The demo serves its own node with its own options, whatever the environment it runs in:
     * a DaemonSet's {@code VFIO_DP_*} defaults and JVM options, a cluster's kubeconfig or node name.
     */
    static boolean isNodeSetting(String name) {
        return name.startsWith("VFIO_DP_") || name.equals("KUBECONFIG") || name.equals("KUBERNETES_MASTER") || name.equals("NODE_NAME")
                || name.equals("JDK_JAVA_OPTIONS");
    }

    private void read(Optional<PrintWriter> forward) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), Charset.defaultCharset()))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String l = line;
                forward.ifPresent(w -> {
                    w.println(l);
                    w.flush();
                });
                synchronized (lastLines) {
                    if (lastLines.size() == KEPT_LINES) lastLines.removeFirst();
                    lastLines.addLast(line);
                }
                Matcher m = METRICS_LINE.matcher(line);
                if (m.find()) metricsPort.complete(Integer.parseInt(m.group(1)));
            }
        } catch (IOException e) {
            metricsPort.completeExceptionally(new UncheckedIOException("cannot read the plugin process' output", e));
        }
        metricsPort.completeExceptionally(new IllegalStateException("the plugin process' output ended"));
    }

    private void awaitMetricsPort() throws IOException {
        try {
            metricsPort.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // its output ended: it has exited, or is about to
            if (!waitFor(stopWait)) kill();
            throw new ServeFailure("serve ended before serving; " + state());
        } catch (TimeoutException e) {
            kill();
            throw new ServeFailure("serve logged no 'metrics on http://...' line within " + START_WAIT.toSeconds() + " s; " + state());
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting serve", e);
        }
    }

    private boolean waitFor(Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    boolean exited = process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (exited) reader.join(timeout.toMillis());
                    return exited;
                } catch (InterruptedException e) {
                    // the child must not outlive the demo: finish waiting, keep the interrupt
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private void kill() {
        process.destroyForcibly();
        waitFor(STOP_WAIT);
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public int metricsPort() {
        return metricsPort.join();
    }

    @Override
    public String state() {
        String how = process.isAlive() ? "is running" : "exited with status " + process.exitValue();
        List<String> lines;
        synchronized (lastLines) {
            lines = List.copyOf(lastLines);
        }
        if (lines.isEmpty()) return "the plugin process (pid " + pid() + ") " + how + " and printed nothing";
        return "the plugin process (pid " + pid() + ") " + how + "; its last output lines:\n  " + String.join("\n  ", lines);
    }

    @Override
    public void close() {
        // Not Process.destroy(): it also closes the output pipe, and what serve logs as it stops
        // would be lost, or kill what it starts as it exits (the JVM's AOT cache assembly) by SIGPIPE.
        process.toHandle().destroy();
        if (!waitFor(stopWait)) {
            kill();
            throw new ServeFailure("serve did not stop within " + stopWait.toSeconds() + " s of SIGTERM and was killed; " + state());
        }
        if (process.exitValue() != 0) throw new ServeFailure("serve did not stop cleanly on SIGTERM; " + state());
    }
}
