package io.vfiodp.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * What an idle plugin costs over a period: CPU time (utime + stime of /proc/PID/stat, exited
 * threads included) and context switches, each a wake-up or a preemption. Switches come from
 * {@code perf stat -e context-switches} when perf can attach (it counts threads born and gone within
 * the period), and always from the threads' status files sampled every second, which miss threads
 * that live less than that (a rescan's reader pool).
 */
record IdleCost(Duration over, long cpuMillis, long sampledSwitches, int threadsSeen, OptionalLong perfSwitches) {

    double cpuSecondsPerHour() {
        return cpuMillis / 1000.0 * Duration.ofHours(1).toMillis() / over.toMillis();
    }

    /** Switches per minute: perf's count when there is one, else the sampled one. */
    double wakeupsPerMinute() {
        return perfSwitches.orElse(sampledSwitches) * (double) Duration.ofMinutes(1).toMillis() / over.toMillis();
    }

    String source() {
        return perfSwitches.isPresent() ? "perf stat context-switches" : "/proc task status, sampled every second";
    }

    @Override
    public String toString() {
        return String.format("over %d s: CPU %d ms = %.2f CPU-s/hour; context switches %s%d sampled from /proc (%d threads seen) = %.0f per minute (%s)",
                over.toSeconds(), cpuMillis, cpuSecondsPerHour(), perfSwitches.isPresent() ? perfSwitches.getAsLong() + " by perf, " : "",
                sampledSwitches, threadsSeen, wakeupsPerMinute(), source());
    }

    static IdleCost measure(long pid, Duration over) throws IOException, InterruptedException {
        Path proc = Path.of("/proc", Long.toString(pid));
        Process perf = startPerf(pid, over);
        long cpu0 = ProcStat.cpuMillis(Files.readString(proc.resolve("stat")));
        Map<Long, Long> first = switchesByThread(proc);
        Map<Long, Long> last = new HashMap<>(first);
        long end = System.nanoTime() + over.toNanos();
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            Thread.sleep(Math.min(1000, Math.max(1, left / 1_000_000)));
            last.putAll(switchesByThread(proc));
        }
        long cpu1 = ProcStat.cpuMillis(Files.readString(proc.resolve("stat")));
        long sampled = 0;
        for (Map.Entry<Long, Long> e : last.entrySet()) sampled += e.getValue() - first.getOrDefault(e.getKey(), 0L);
        return new IdleCost(over, cpu1 - cpu0, sampled, last.size(), perfCount(perf));
    }

    private static Map<Long, Long> switchesByThread(Path proc) throws IOException {
        Map<Long, Long> byTid = new HashMap<>();
        List<Path> tasks;
        try (Stream<Path> s = Files.list(proc.resolve("task"))) {
            tasks = s.toList();
        }
        for (Path task : tasks) {
            try {
                byTid.put(Long.parseLong(task.getFileName().toString()), ProcStat.contextSwitches(Files.readString(task.resolve("status"))));
            } catch (NoSuchFileException gone) {
                // the thread exited between the listing and the read
            }
        }
        return byTid;
    }

    /** {@code perf stat} attached to the process for the period, or null when there is no perf. */
    private static Process startPerf(long pid, Duration over) {
        if (!Files.isExecutable(Path.of("/usr/bin/perf"))) return null;
        try {
            return new ProcessBuilder("/usr/bin/perf", "stat", "-x", ",", "-e", "context-switches", "-p", Long.toString(pid), "--", "sleep",
                    Long.toString(over.toSeconds())).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            return null;
        }
    }

    private static OptionalLong perfCount(Process perf) throws IOException, InterruptedException {
        if (perf == null) return OptionalLong.empty();
        String csv = new String(perf.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        perf.waitFor();
        return parsePerfCsv(csv);
    }

    /**
     * The count of {@code perf stat -x ,}'s context-switches line ("1177,,context-switches,...");
     * "&lt;not counted&gt;" means no thread of the process ran during the period, so none; empty when
     * perf could not count at all (no such event, no permission).
     */
    static OptionalLong parsePerfCsv(String csv) {
        for (String line : csv.split("\n")) {
            String[] f = line.split(",");
            if (f.length <= 2 || !f[2].equals("context-switches")) continue;
            if (f[0].matches("\\d+")) return OptionalLong.of(Long.parseLong(f[0]));
            if (f[0].equals("<not counted>")) return OptionalLong.of(0);
        }
        return OptionalLong.empty();
    }
}
