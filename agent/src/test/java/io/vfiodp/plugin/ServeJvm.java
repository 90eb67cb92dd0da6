package io.vfiodp.plugin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code serve} in a JVM of its own, as the DaemonSet runs it; its output goes to a file. */
public final class ServeJvm {

    /** JVM option: the plugin's debug lines too (slf4j-simple takes a system property over its properties file). */
    public static final String PLUGIN_DEBUG_LOG = "-Dorg.slf4j.simpleLogger.log.io.vfiodp.plugin=debug";

    private ServeJvm() {}

    /** The command line: this JVM's java and class path, the recommended JIT and GC flags, {@code Main} and {@code args}. */
    public static List<String> command(List<String> args) {
        return command(List.of(), args);
    }

    /** As {@link #command(List)}, with {@code jvmOptions} after the recommended flags. */
    public static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.vfiodp.cli.Main"));
        command.addAll(args);
        return command;
    }

    /** {@code serve}'s options for the fixture node {@code node} ({@code sys}, {@code dev}): metrics on a free port, no KubeVirt. */
    public static List<String> serveOptions(Path node, Path pluginDir) {
        return List.of(
                "--sysfs-root", node.resolve("sys").toString(),
                "--dev-root", node.resolve("dev").toString(),
                "--device-plugin-dir", pluginDir.toString(),
                "--kubevirt", "off",
                // port 0: parallel builds on one machine must not fight over :9402
                "--metrics-address", "127.0.0.1:0");
    }

    /** Starts {@code serve} on the fixture node {@code node} ({@code sys}, {@code dev}), metrics on a free port, no KubeVirt. */
    public static Process start(Path node, Path pluginDir, Path log, String... more) throws IOException {
        return start(List.of(), node, pluginDir, log, more);
    }

    /** As {@link #start(Path, Path, Path, String...)}, run through {@code wrapper} (e.g. {@code unshare -rm sh -c ...}). */
    public static Process start(List<String> wrapper, Path node, Path pluginDir, Path log, String... more) throws IOException {
        return start(wrapper, List.of(), node, pluginDir, log, more);
    }

    /** As {@link #start(List, Path, Path, Path, String...)}, the JVM given {@code jvmOptions}. */
    public static Process start(List<String> wrapper, List<String> jvmOptions, Path node, Path pluginDir, Path log, String... more)
            throws IOException {
        List<String> args = new ArrayList<>(serveOptions(node, pluginDir));
        args.addAll(List.of(more));
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(command(jvmOptions, args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
