package io.vfiodp.bench;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.fixtures.Trees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@link ServeBench}'s runs of one configuration: the plugin started as its own process against
 * a fresh kubelet simulator, timed until every resource registered, and in the last run the
 * calls, the memory map (when asked), kubelet restarts and SIGTERM.
 */
final class StartupRuns {

    private StartupRuns() {}

    static ServeBench.Figures measure(ServeBench.Configuration c, Path fixture, List<String> resources, int runs, boolean memoryMap,
                                   Map<String, String> env, Optional<Path> log) throws Exception {
        List<Long> startups = new ArrayList<>();
        List<Long> cpus = new ArrayList<>();
        AllocateLatency.Calls calls = null;
        // Run 0 warms the page cache (jar, runtime, archive) and is not counted.
        for (int run = 0; run <= runs; run++) {
            boolean last = run == runs;
            Path dir = Files.createTempDirectory("vfio-dp-bench-");
            try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
                List<String> cmd = new ArrayList<>(c.command());
                cmd.addAll(List.of("serve", "--sysfs-root", fixture.resolve("sys").toString(),
                        "--dev-root", fixture.resolve("dev").toString(), "--device-plugin-dir", dir.toString(),
                        "--metrics-address", "127.0.0.1:0"));
                // --log keeps the output of the last run (e.g. with -Xlog flags), for finding where start-up time goes
                ProcessBuilder.Redirect output = log.filter(f -> last).map(f -> ProcessBuilder.Redirect.to(f.toFile())).orElse(ProcessBuilder.Redirect.DISCARD);
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(output).redirectErrorStream(true);
                pb.environment().remove("JDK_JAVA_OPTIONS");
                pb.environment().keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
                pb.environment().putAll(env);
                long t0 = System.nanoTime();
                Process p = pb.start();
                try {
                    kubelet.awaitRegistrations(resources, 1, Duration.ofSeconds(30));
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    long cpu = ProcStat.cpuMillis(Files.readString(Path.of("/proc/" + p.pid() + "/stat")));
                    if (run > 0) {
                        startups.add(ms);
                        cpus.add(cpu);
                    }
                    System.out.printf("run %d: start -> %d resource(s) registered in %d ms wall, %d ms CPU%s%n", run, resources.size(), ms,
                            cpu, run == 0 ? " (warm-up, not counted)" : "");
                    if (last) {
                        calls = AllocateLatency.measure(kubelet, resources.getFirst(), p.pid());
                        if (memoryMap) MemoryMap.print(p.pid(), c.command().stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking=")));
                        measureReRegistration(kubelet, resources);
                    }
                } finally {
                    long s0 = System.nanoTime();
                    p.destroy();
                    boolean exited = p.waitFor(10, TimeUnit.SECONDS);
                    if (last) {
                        System.out.printf("SIGTERM -> exit %s in %d ms%n", exited ? String.valueOf(p.exitValue()) : "(still running)",
                                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - s0));
                    }
                    if (!exited) p.destroyForcibly().waitFor();
                }
            } finally {
                Trees.deleteRecursively(dir);
            }
        }
        startups.sort(null);
        cpus.sort(null);
        System.out.printf("start-up to all registered: median %d ms, min %d ms, max %d ms wall over %d runs; median %d ms CPU (user+sys)%n",
                startups.get(startups.size() / 2), startups.getFirst(), startups.getLast(), startups.size(), cpus.get(cpus.size() / 2));
        return new ServeBench.Figures(c, startups, cpus, calls.allocateP50Us(), calls.allocateP99Us(), calls.rss());
    }

    static void measureReRegistration(KubeletSimulator kubelet, List<String> resources) throws Exception {
        long[] delays = new long[ServeBench.RESTARTS];
        for (int i = 0; i < ServeBench.RESTARTS; i++) {
            int round = i + 2;
            long t0 = System.nanoTime();
            kubelet.restart();
            kubelet.awaitRegistrations(resources, round, Duration.ofSeconds(30));
            delays[i] = System.nanoTime() - t0;
        }
        Arrays.sort(delays);
        System.out.printf("kubelet restart -> all re-registered: p50 %.1f ms, max %.1f ms over %d restarts%n",
                AllocateLatency.us(delays, 50) / 1000.0, delays[ServeBench.RESTARTS - 1] / 1_000_000.0, ServeBench.RESTARTS);
    }

}
