package io.vfiodp.host.scan;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

/**
 * Incremental rescan benchmark: on the large host tree of {@link SysfsScanBench}, the update for
 * one device as a uevent would trigger it: a GPU unbound from and bound again to vfio-pci (its
 * {@code driver} link removed and put back), and the rescan that names it, against a full scan of
 * the same tree. Prints median, min and p90 wall time per update, the process CPU time per update,
 * and checks every rescan's snapshot against a full scan (outside the timing). Target: one device
 * in 2 ms or less.
 *
 * <p>Arguments: {@code [warmup-updates [measured-updates]]}, default 300 and 1000.
 */
public final class SysfsRescanBench {

    private SysfsRescanBench() {}

    public static void main(String[] args) throws IOException {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "vfiodp-rescan-bench")
                : Files.createTempDirectory("vfiodp-rescan-bench");
        try {
            LargeHostTree.write(dir, LargeHostTree.Shape.BENCHMARK);
            SysfsScanner scanner = new SysfsScanner(dir.resolve("sys"), dir.resolve("dev"));
            HostScan scan = scanner.fullScan();
            HostSnapshot s = scan.snapshot();
            PciFunction gpu = s.functions().values().stream().filter(f -> f.vendor() == PciFunction.VENDOR_NVIDIA
                    && f.baseClass() == 0x03 && f.isBoundTo("vfio-pci")).findFirst().orElseThrow();
            Path driver = dir.resolve("sys/bus/pci/devices").resolve(gpu.address().toString()).toRealPath().resolve("driver");
            Path target = Files.readSymbolicLink(driver);
            ChangedDevices changed = ChangedDevices.of(Set.of(gpu.address()), Set.of());
            System.out.printf(Locale.ROOT, "tree: %d PCI functions, %d mdevs, %d IOMMU groups, %d /dev/vfio group nodes, in %s (%s); "
                            + "the device: %s (IOMMU group %d, %d members)%n",
                    s.functions().size(), s.mdevs().size(), s.groups().size(), s.devNodes().groupNodes().size(), dir,
                    Files.getFileStore(dir).type(), gpu.address(), gpu.iommuGroup().getAsInt(),
                    s.group(gpu.iommuGroup().getAsInt()).orElseThrow().members().size());

            long[] nanos = new long[measured];
            long cpu = 0;
            for (int i = 0; i < warmup + measured; i++) {
                if (i % 2 == 0) Files.delete(driver);
                else Files.createSymbolicLink(driver, target);
                long cpuStart = processCpuNanos();
                long start = System.nanoTime();
                scan = scanner.rescan(scan, changed);
                long took = System.nanoTime() - start;
                long cpuTook = processCpuNanos() - cpuStart;
                if (i >= warmup) {
                    nanos[i - warmup] = took;
                    cpu += cpuTook;
                }
                if (i % 50 == 0 && !scan.snapshot().equals(scanner.scan())) {
                    throw new IllegalStateException("rescan " + i + " differs from a full scan");
                }
            }
            print("rescan of one device (unbind or bind)", nanos, cpu);

            long[] full = new long[Math.max(10, measured / 20)];
            long fullCpu = 0;
            for (int i = 0; i < 10; i++) scanner.fullScan();
            for (int i = 0; i < full.length; i++) {
                long cpuStart = processCpuNanos();
                long start = System.nanoTime();
                scanner.fullScan();
                full[i] = System.nanoTime() - start;
                fullCpu += processCpuNanos() - cpuStart;
            }
            print("full scan, for comparison", full, fullCpu);
        } finally {
            Trees.deleteRecursively(dir);
        }
    }

    private static void print(String what, long[] nanos, long cpuNanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "%s: median %.3f ms, min %.3f ms, p90 %.3f ms, max %.3f ms over %d; process CPU %.3f ms each%n",
                what, sorted[sorted.length / 2] / 1e6, sorted[0] / 1e6, sorted[(int) (sorted.length * 0.9)] / 1e6,
                sorted[sorted.length - 1] / 1e6, sorted.length, cpuNanos / 1e6 / sorted.length);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
