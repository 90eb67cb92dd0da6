package io.vfiodp.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads one JVM process's footprint from the outside: VmRSS and thread count from
 * {@code /proc/PID/status}, open descriptors from {@code /proc/PID/fd}, and, through its attach
 * socket, heap and metaspace in use right after a full GC. Forcing the GC makes the heap figure
 * the live set instead of wherever the young-generation sawtooth happens to be.
 */
final class ProcessProbe {

    /** A generation or heap line of {@code GC.heap_info}: "DefNew total 2432K, used 1688K [...", "garbage-first heap total ...". */
    private static final Pattern HEAP_LINE = Pattern.compile("(?m)^\\s*\\S.*?\\btotal (\\d+)K, used (\\d+)K");
    private static final Pattern METASPACE_LINE = Pattern.compile("(?m)^\\s*Metaspace\\s+used (\\d+)K");

    /** The process's own figures, without the load counters. */
    record Footprint(double rssMiB, double heapMiB, double metaspaceMiB, int threads, int fds) {}

    private final long pid;
    private final HotSpotAttach attach;

    private ProcessProbe(long pid, HotSpotAttach attach) {
        this.pid = pid;
        this.attach = attach;
    }

    /**
     * Starts {@code pid}'s attach listener now, so that its thread (and socket) are there from the
     * first sample on instead of showing up as growth.
     */
    static ProcessProbe of(long pid) throws IOException, InterruptedException {
        return new ProcessProbe(pid, HotSpotAttach.to(pid));
    }

    Footprint sample() throws IOException {
        attach.jcmd("GC.run");
        double heap = heapUsedMiB(attach.jcmd("GC.heap_info"));
        double metaspace = metaspaceUsedMiB(attach.jcmd("VM.metaspace"));
        long rssKiB = -1;
        int threads = -1;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) rssKiB = Long.parseLong(line.replaceAll("\\D", ""));
            if (line.startsWith("Threads:")) threads = Integer.parseInt(line.replaceAll("\\D", ""));
        }
        if (rssKiB < 0 || threads < 0) throw new IOException("/proc/" + pid + "/status has no VmRSS or Threads line (process gone?)");
        int fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            fds = (int) s.count();
        }
        return new Footprint(rssKiB / 1024.0, heap, metaspace, threads, fds);
    }

    /** Live objects per class, after the full GC the command runs first. */
    HeapHistogram histogram() throws IOException {
        return HeapHistogram.parse(attach.jcmd("GC.class_histogram"));
    }

    /** The sum of the generations' "used" in a {@code GC.heap_info} answer (one line for G1, two for Serial and Parallel). */
    static double heapUsedMiB(String heapInfo) throws IOException {
        Matcher m = HEAP_LINE.matcher(heapInfo);
        long kib = 0;
        boolean found = false;
        while (m.find()) {
            kib += Long.parseLong(m.group(2));
            found = true;
        }
        if (!found) throw new IOException("no 'total NK, used NK' line in GC.heap_info (a collector this probe does not know?): " + heapInfo.strip());
        return kib / 1024.0;
    }

    static double metaspaceUsedMiB(String metaspaceInfo) throws IOException {
        Matcher m = METASPACE_LINE.matcher(metaspaceInfo);
        if (!m.find()) throw new IOException("no 'Metaspace used NK' line in VM.metaspace: " + metaspaceInfo.lines().limit(3).toList());
        return Long.parseLong(m.group(1)) / 1024.0;
    }
}
