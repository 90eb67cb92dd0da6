package io.vfiodp.bench;

/** Parsers for the {@code /proc/PID/stat} and {@code /proc/PID[/task/TID]/status} figures the benchmarks read. */
final class ProcStat {

    /** USER_HZ, the unit of utime and stime; 100 on every Linux architecture the plugin is built for. */
    static final int CLOCK_TICKS_PER_SECOND = 100;

    private ProcStat() {}

    /**
     * utime + stime of a {@code /proc/PID/stat} line, in milliseconds: the process's CPU time so
     * far, threads that have exited included. Fields are counted after the command name, which may
     * hold spaces and parentheses, so from the last ')'.
     */
    static long cpuMillis(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) throw new IllegalArgumentException("not a /proc/PID/stat line: " + stat.strip());
        String[] f = stat.substring(close + 2).strip().split(" ");
        if (f.length < 13) throw new IllegalArgumentException("/proc/PID/stat line too short: " + stat.strip());
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / CLOCK_TICKS_PER_SECOND;
    }

    /** A "Name:   1234 kB" line of a status file, in KiB. */
    static long statusKiB(String status, String name) {
        return statusNumber(status, name);
    }

    /** voluntary + nonvoluntary context switches of one task's status file. */
    static long contextSwitches(String status) {
        return statusNumber(status, "voluntary_ctxt_switches") + statusNumber(status, "nonvoluntary_ctxt_switches");
    }

    private static long statusNumber(String status, String name) {
        String prefix = name + ":";
        for (String line : status.split("\n")) {
            if (line.startsWith(prefix)) return Long.parseLong(line.substring(prefix.length()).replaceAll("\\D", ""));
        }
        throw new IllegalArgumentException("no " + name + " line in the status file");
    }
}
