package io.vfiodp.bench;

import io.vfiodp.deploy.ShippedJvmFlags;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * How long and how hard to soak, and which plugin to run.
 *
 * @param length       the whole run, warm-up included
 * @param sampleEvery  time between samples
 * @param warmup       samples before this are printed but not judged
 * @param restartEvery time between kubelet restarts
 * @param flapEvery    one flap (a group node removed, then re-created half-way) per this period
 * @param clients      threads each calling GetPreferredAllocation then Allocate, over and over
 * @param clientPause  what each client waits between two rounds
 * @param fixture      node tree ({@code sys}, {@code dev}) to copy and serve
 * @param java         the {@code java} launcher for the plugin
 * @param launch       what follows the JVM flags: {@code -jar JAR} or {@code -cp CP io.vfiodp.cli.Main}
 * @param jvmFlags     the plugin's JVM flags
 */
record SoakSettings(Duration length, Duration sampleEvery, Duration warmup, Duration restartEvery, Duration flapEvery, int clients,
                    Duration clientPause, Path fixture, Path java, List<String> launch, List<String> jvmFlags) {

    static final String USAGE = """
            usage: java -cp 'agent/target/vfio-device-plugin.jar:bench/target/test-classes:bench/target/bench-lib/*' io.vfiodp.bench.SoakBench
                [--minutes M (10)] [--sample-seconds S (5)] [--warmup DURATION (the larger of 1 m and 20% of the run)]
                [--restart-seconds S (5)] [--flap-seconds S (1)] [--clients N (3)] [--client-pause-ms MS (20)]
                [--fixture DIR (agent/src/test/resources/sysfs-fixtures/t4-numa)]
                [--jar JAR (agent/target/vfio-device-plugin.jar) | --classpath CP] [--java PATH (this JVM's)]
                [-- plugin JVM flags (default: the shipped flags, image/src/main/image/jvm.options)]
            DURATION: seconds, or a number with s or m (90, 90s, 1.5m).""";

    SoakSettings {
        for (Duration d : List.of(length, sampleEvery, restartEvery, flapEvery)) {
            if (!d.isPositive()) throw new IllegalArgumentException("durations must be positive: " + d);
        }
        if (warmup.isNegative() || warmup.compareTo(length) >= 0) {
            throw new IllegalArgumentException("--warmup " + warmup.toSeconds() + " s must be shorter than the run (" + length.toSeconds() + " s)");
        }
        if (sampleEvery.compareTo(length) > 0) throw new IllegalArgumentException("--sample-seconds is longer than the run");
        if (clients < 0) throw new IllegalArgumentException("--clients " + clients + " is negative");
        if (clientPause.isNegative()) throw new IllegalArgumentException("--client-pause-ms is negative");
        Objects.requireNonNull(fixture, "fixture");
        Objects.requireNonNull(java, "java");
        launch = List.copyOf(launch);
        if (launch.isEmpty()) throw new IllegalArgumentException("nothing to launch");
        jvmFlags = List.copyOf(jvmFlags);
    }

    /** The default warm-up: the larger of one minute and a fifth of the run, but never the whole run. */
    static Duration defaultWarmup(Duration length) {
        Duration fifth = length.dividedBy(5);
        Duration minute = Duration.ofMinutes(1);
        if (fifth.compareTo(minute) >= 0) return fifth;
        return minute.compareTo(length) < 0 ? minute : fifth;
    }

    static SoakSettings parse(String... args) {
        Duration length = Duration.ofMinutes(10);
        Duration sample = Duration.ofSeconds(5);
        Duration warmup = null;
        Duration restart = Duration.ofSeconds(5);
        Duration flap = Duration.ofSeconds(1);
        int clients = 3;
        Duration pause = Duration.ofMillis(20);
        Path fixture = SysfsFixtures.committedRoot().resolve("t4-numa");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> launch = List.of("-jar", "agent/target/vfio-device-plugin.jar");
        List<String> flags = ShippedJvmFlags.read();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                flags = Arrays.asList(args).subList(i + 1, args.length);
                break;
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value\n" + USAGE);
            String v = args[++i];
            switch (a) {
                case "--minutes" -> length = duration(v + "m", a);
                case "--sample-seconds" -> sample = duration(v, a);
                case "--warmup" -> warmup = duration(v, a);
                case "--restart-seconds" -> restart = duration(v, a);
                case "--flap-seconds" -> flap = duration(v, a);
                case "--clients" -> clients = integer(v, a);
                case "--client-pause-ms" -> pause = Duration.ofMillis(integer(v, a));
                case "--fixture" -> fixture = Path.of(v);
                case "--jar" -> launch = List.of("-jar", v);
                case "--classpath" -> launch = List.of("-cp", v, "io.vfiodp.cli.Main");
                case "--java" -> java = Path.of(v);
                default -> throw new IllegalArgumentException("unknown argument " + a + "\n" + USAGE);
            }
        }
        return new SoakSettings(length, sample, warmup == null ? defaultWarmup(length) : warmup, restart, flap, clients, pause, fixture,
                java, launch, flags);
    }

    /** The plugin's command line up to its own arguments. */
    List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmFlags);
        cmd.addAll(launch);
        return cmd;
    }

    private static Duration duration(String v, String option) {
        String number = v.endsWith("s") || v.endsWith("m") ? v.substring(0, v.length() - 1) : v;
        double seconds;
        try {
            seconds = Double.parseDouble(number) * (v.endsWith("m") ? 60 : 1);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + v + ": not a number of seconds (or minutes with m)");
        }
        if (!(seconds > 0) && !(seconds == 0 && option.equals("--warmup"))) throw new IllegalArgumentException(option + " " + v + " must be positive");
        return Duration.ofMillis(Math.round(seconds * 1000));
    }

    private static int integer(String v, String option) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + v + ": not a whole number");
        }
    }
}
