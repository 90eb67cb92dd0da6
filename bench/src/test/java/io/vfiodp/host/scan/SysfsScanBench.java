package io.vfiodp.host.scan;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Scan benchmark: writes a large host tree ({@link LargeHostTree.Shape#BENCHMARK}) to a temp
 * directory, then times warm scans of it with one reader thread and with the default pool, and
 * prints time per scan and per device. Run it as docs/benchmarks.md says.
 * Besides wall-clock time it prints the process CPU time per scan (all threads, JIT and GC
 * included), which stays meaningful on a machine shared with other work.
 *
 * <p>The tree goes to {@code /dev/shm} when it is there: real sysfs is an in-memory filesystem
 * (kernfs), and a disk filesystem's directory code would otherwise take a fifth of the time
 * measured. The filesystem used is printed.
 *
 * <p>Arguments: {@code [warmup-scans [measured-scans]]}, default 30 and 100.
 */
public final class SysfsScanBench {

    private SysfsScanBench() {}

    public static void main(String[] args) throws IOException {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "vfiodp-scan-bench")
                : Files.createTempDirectory("vfiodp-scan-bench");
        try {
            LargeHostTree.write(dir, LargeHostTree.Shape.BENCHMARK);
            HostSnapshot probe = new SysfsScanner(dir.resolve("sys"), dir.resolve("dev")).scan();
            int devices = probe.functions().size() + probe.mdevs().size();
            System.out.printf(Locale.ROOT, "tree: %d PCI functions (%d vGPU VFs), %d mdevs, %d IOMMU groups, %d problems; "
                            + "in %s (%s); %d CPUs%n",
                    probe.functions().size(), probe.vgpuVfs().size(), probe.mdevs().size(), probe.groups().size(),
                    probe.problems().size(), dir, Files.getFileStore(dir).type(), Runtime.getRuntime().availableProcessors());
            if (!probe.problems().isEmpty()) {
                throw new IllegalStateException("benchmark tree has problems, first: " + probe.problems().subList(0, Math.min(5, probe.problems().size())));
            }

            for (int threads : new int[] {1, Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()))}) {
                ReaderPool readers = threads == 1 ? null : ReaderPool.start(threads);
                SysfsScanner scanner = readers == null ? new SysfsScanner(dir.resolve("sys"), dir.resolve("dev"))
                        : new SysfsScanner(dir.resolve("sys"), dir.resolve("dev"), readers);
                for (int i = 0; i < warmup; i++) scanner.scan();
                long[] nanos = new long[measured];
                long cpuStart = processCpuNanos();
                for (int i = 0; i < measured; i++) {
                    long start = System.nanoTime();
                    HostSnapshot s = scanner.scan();
                    nanos[i] = System.nanoTime() - start;
                    if (s.functions().size() != probe.functions().size()) throw new IllegalStateException("scan changed");
                }
                double cpuPerScan = (processCpuNanos() - cpuStart) / 1e6 / measured;
                Arrays.sort(nanos);
                double median = nanos[measured / 2] / 1e6;
                System.out.printf(Locale.ROOT,
                        "warm scan, %d reader thread(s): median %.1f ms, min %.1f ms, p90 %.1f ms per scan; %.1f µs per device (median); "
                                + "process CPU %.1f ms per scan%n",
                        threads, median, nanos[0] / 1e6, nanos[(int) (measured * 0.9)] / 1e6, median * 1000 / devices, cpuPerScan);
                if (readers != null) readers.close();
            }
        } finally {
            Trees.deleteRecursively(dir);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
