package io.vfiodp.bench;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One plugin process serving one node to a kubelet simulator of its own, timed from just before
 * the process is started. Closing it stops the process (SIGTERM, then SIGKILL after 10 s) and
 * removes the device-plugin directory.
 */
final class PluginRun implements AutoCloseable {

    /** What a plugin serves once it has settled: device count per registered resource. */
    record Expectation(SortedMap<String, Integer> devices) {
        Expectation {
            devices = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(devices));
        }

        int total() {
            return devices.values().stream().mapToInt(Integer::intValue).sum();
        }

        @Override
        public String toString() {
            return devices.size() + " resource(s), " + total() + " device(s): " + devices;
        }
    }

    /**
     * Allocate latency on one channel, in microseconds: the first call after registration and the
     * median and 99th percentile of the first {@value #EARLY} (what a kubelet sees on a node, where
     * Allocates are rare), and the percentiles after the warm-up.
     */
    record Latency(double firstUs, double earlyP50Us, double earlyP99Us, double p50Us, double p99Us) {}

    /** Resident memory of the process in KiB: the peak (VmHWM), and now (VmRSS), anonymous and file-backed. */
    record Memory(long hwmKiB, long rssKiB, long anonKiB, long fileKiB) {}

    static final int EARLY = 100;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Contender contender;
    private final Path dir;
    private final KubeletSimulator kubelet;
    private final Process process;
    private final long t0;

    private PluginRun(Contender contender, Path dir, KubeletSimulator kubelet, Process process, long t0) {
        this.contender = contender;
        this.dir = dir;
        this.kubelet = kubelet;
        this.process = process;
        this.t0 = t0;
    }

    static PluginRun start(Contender contender, Path node, Optional<Path> log) throws IOException {
        Path dir = Files.createTempDirectory("vfio-dp-peer-bench-");
        KubeletSimulator kubelet = KubeletSimulator.start(dir);
        ProcessBuilder pb = new ProcessBuilder(contender.command(node, dir)).redirectErrorStream(true)
                .redirectOutput(log.map(f -> ProcessBuilder.Redirect.to(f.toFile())).orElse(ProcessBuilder.Redirect.DISCARD));
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("VFIO_DP_") || k.equals("NODE_NAME"));
        long t0 = System.nanoTime();
        try {
            return new PluginRun(contender, dir, kubelet, pb.start(), t0);
        } catch (IOException e) {
            kubelet.close();
            Trees.deleteRecursively(dir);
            throw e;
        }
    }

    long pid() {
        return process.pid();
    }

    /** Milliseconds from the start until every resource of {@code expected} has registered. */
    long awaitRegistered(Expectation expected) throws InterruptedException, TimeoutException {
        kubelet.awaitRegistrations(expected.devices().keySet(), 1, TIMEOUT);
        return sinceStartMs();
    }

    /** Milliseconds from the start until every resource has sent its full device list. */
    long awaitListed(Expectation expected) throws InterruptedException, TimeoutException {
        kubelet.awaitRegistrations(expected.devices().keySet(), 1, TIMEOUT);
        for (Map.Entry<String, Integer> e : expected.devices().entrySet()) {
            int n = e.getValue();
            kubelet.watch(e.getKey()).awaitUpdate(u -> u.getDevicesCount() == n, TIMEOUT);
        }
        return sinceStartMs();
    }

    /** Learns what the plugin serves: waits until nothing changed in registrations or device lists for {@code quiet}. */
    Expectation settle(Duration quiet) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        SortedMap<String, Integer> last = new TreeMap<>();
        long stableSince = System.nanoTime();
        while (true) {
            SortedMap<String, Integer> now = new TreeMap<>();
            for (KubeletSimulator.Registration r : kubelet.registrations()) {
                now.put(r.resourceName(), kubelet.latest(r.resourceName()).map(ListAndWatchResponse::getDevicesCount).orElse(-1));
            }
            if (!now.equals(last)) {
                last = now;
                stableSince = System.nanoTime();
            } else if (!now.isEmpty() && !now.containsValue(-1) && System.nanoTime() - stableSince >= quiet.toNanos()) {
                return new Expectation(now);
            }
            if (!process.isAlive()) throw new IllegalStateException(contender.name() + " exited with " + process.exitValue() + " (see --logs)");
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(contender.name() + " did not settle within " + TIMEOUT + ": " + now + "; rejections " + kubelet.rejections());
            }
            Thread.sleep(50);
        }
    }

    /** CPU time the process used so far: utime + stime of /proc/PID/stat. */
    long cpuMillis() throws IOException {
        return ProcStat.cpuMillis(Files.readString(Path.of("/proc/" + pid() + "/stat")));
    }

    /** VmHWM (peak resident set) in KiB. */
    long vmHwmKiB() throws IOException {
        return memory().hwmKiB();
    }

    /** The peak and present resident memory, from one read of the status file. */
    Memory memory() throws IOException {
        String status = Files.readString(Path.of("/proc/" + pid() + "/status"));
        return new Memory(ProcStat.statusKiB(status, "VmHWM"), ProcStat.statusKiB(status, "VmRSS"), ProcStat.statusKiB(status, "RssAnon"),
                ProcStat.statusKiB(status, "RssFile") + ProcStat.statusKiB(status, "RssShmem"));
    }

    /**
     * {@code calls} Allocates of one healthy device of {@code resource} on one channel, as the kubelet
     * makes them; the latency is of the calls after the first {@code warmup}.
     */
    Latency allocate(String resource, int calls, int warmup) throws InterruptedException, TimeoutException {
        String device = kubelet.watch(resource).awaitUpdate(u -> u.getDevicesList().stream().anyMatch(d -> d.getHealth().equals("Healthy")), TIMEOUT)
                .getDevicesList().stream().filter(d -> d.getHealth().equals("Healthy")).findFirst().orElseThrow().getID();
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(kubelet.stub(resource).getChannel());
        AllocateRequest request = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(device)).build();
        if (warmup < EARLY) throw new IllegalArgumentException("the warm-up (" + warmup + " calls) must cover the first " + EARLY);
        long[] nanos = new long[calls - warmup];
        long[] early = new long[EARLY];
        for (int i = 0; i < calls; i++) {
            long a = System.nanoTime();
            stub.allocate(request);
            long took = System.nanoTime() - a;
            if (i < EARLY) early[i] = took;
            if (i >= warmup) nanos[i - warmup] = took;
        }
        double first = early[0] / 1000.0;
        Arrays.sort(early);
        Arrays.sort(nanos);
        return new Latency(first, percentile(early, 50) / 1000.0, percentile(early, 99) / 1000.0, percentile(nanos, 50) / 1000.0,
                percentile(nanos, 99) / 1000.0);
    }

    private static long percentile(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private long sinceStartMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** SIGTERM, and SIGKILL when the process has not ended within {@code grace}; the exit status. */
    int terminate(Duration grace) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) process.destroyForcibly().waitFor();
        return process.exitValue();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            terminate(Duration.ofSeconds(10));
        } finally {
            kubelet.close();
            Trees.deleteRecursively(dir);
        }
    }
}
