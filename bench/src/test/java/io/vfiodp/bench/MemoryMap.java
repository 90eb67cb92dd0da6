package io.vfiodp.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where a plugin process' resident memory is, as {@link ServeBench} prints it. */
final class MemoryMap {

    private MemoryMap() {}

    /**
     * Where the resident memory is: RSS per mapping (libjvm, each CDS archive, anonymous memory),
     * and with -XX:NativeMemoryTracking the JVM's own account of it (jcmd of the JDK running this bench).
     */
    static void print(long pid, boolean nmt) throws Exception {
        java.util.Map<String, long[]> byName = new java.util.TreeMap<>();
        String name = null;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                String[] f = line.trim().split("\\s+", 6);
                name = f.length == 6 ? f[5] : "[anonymous]";
            } else if (line.startsWith("Rss:")) {
                byName.computeIfAbsent(name, n -> new long[2])[0] += kb(line);
            } else if (line.startsWith("Anonymous:")) {
                byName.computeIfAbsent(name, n -> new long[2])[1] += kb(line);
            }
        }
        System.out.println("resident memory by mapping (RSS, of which anonymous):");
        byName.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(8)
                .forEach(e -> System.out.printf("  %8.1f MiB %8.1f MiB  %s%n", e.getValue()[0] / 1024.0, e.getValue()[1] / 1024.0, e.getKey()));
        if (nmt) {
            System.out.println("native memory tracking (committed):");
            jcmd(pid, "VM.native_memory", "summary").lines().filter(l -> l.startsWith("Total:") || l.matches("^-\\s+\\S.*"))
                    .forEach(l -> System.out.println("  " + l.replaceFirst("^-\\s+", "").replaceFirst("reserved=\\d+KB, ", "")));
        }
        System.out.println("code cache (compiled code, interpreter, stubs):");
        jcmd(pid, "Compiler.codecache").lines().filter(l -> l.startsWith("CodeHeap") || l.startsWith(" total_blobs") || l.contains("size="))
                .forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("heap:");
        jcmd(pid, "GC.heap_info").lines().skip(1).forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("live objects after a full collection (the largest classes):");
        List<String> histogram = jcmd(pid, "GC.class_histogram").lines().skip(1).toList();
        histogram.stream().limit(14).forEach(l -> System.out.println("  " + l.strip()));
        System.out.println("  " + histogram.getLast().strip());
    }

    /** Runs a diagnostic command in the process, with the jcmd of the JDK running this bench (a jlink runtime has none). */
    private static String jcmd(long pid, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        cmd.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        jcmd.waitFor();
        return out;
    }

    /** VmRSS, with its anonymous (heap, stacks, metaspace) and file-backed (libjvm, CDS archives, jar) parts. */
    static String vmRss(long pid) throws IOException {
        long rss = -1;
        long anon = -1;
        long file = -1;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) rss = kb(line);
            if (line.startsWith("RssAnon:")) anon = kb(line);
            if (line.startsWith("RssFile:")) file = kb(line);
        }
        if (rss < 0) return "unknown (no VmRSS in /proc/" + pid + "/status)";
        return String.format("%.1f MiB (anonymous %.1f MiB, file-backed %.1f MiB)", rss / 1024.0, anon / 1024.0, file / 1024.0);
    }

    private static long kb(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("\\D", ""));
    }
}
