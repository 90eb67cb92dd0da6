package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.host.fixtures.KernelLayer;
import io.vfiodp.host.fixtures.LargeHostTree;
import io.vfiodp.host.fixtures.SysfsTreeWriter;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How long {@code doctor} takes on the scan benchmark's host ({@link LargeHostTree.Shape#BENCHMARK}:
 * 2,038 PCI functions, 270 GPU cards, 8 SR-IOV PFs with 256 VFs, 4 mdev parents) with the kernel's
 * facts of a 64-CPU Xeon ({@link KernelLayer}: two VT-d units, the VFIO modules, a
 * {@code /proc/interrupts} of 300 lines by 64 columns). Times what the command does after the JVM
 * started: read the node (the scan, the kernel's facts, pci.ids, the policy), examine it and format
 * the report. The VFIO container's answer is canned (the tree's device nodes are plain files).
 *
 * <p>Prints the first run (a fresh JVM: what an operator waits for), then the median, min and p90
 * of warm runs, and the process CPU time per warm run. The tree goes to {@code /dev/shm} when
 * there (real sysfs is in memory). Arguments: {@code [warmup-runs [measured-runs]]}, default 20 and 50.
 */
public final class DoctorBench {

    private DoctorBench() {}

    public static void main(String[] args) throws IOException {
        long jvmStart = System.nanoTime();
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "vfiodp-doctor-bench")
                : Files.createTempDirectory("vfiodp-doctor-bench");
        try {
            LargeHostTree.write(dir, LargeHostTree.Shape.BENCHMARK);
            kernel(new KernelLayer(new SysfsTreeWriter(dir)));
            Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
            DoctorSettings settings = new DoctorSettings(dir.resolve("sys"), dir.resolve("dev"), dir.resolve("proc"), Optional.empty(), Optional.empty(),
                    Optional.empty(), new KubeletPaths(plugins, false, dir.resolve("plugins_registry"), dir.resolve("cdi")));
            VfioProbe vfio = devRoot -> new Reading.Found<>(new VfioAvailability.Available(0, true, true));

            long first = System.nanoTime();
            String report = run(settings, vfio);
            double firstMs = (System.nanoTime() - first) / 1e6;
            int functions = new SysfsScanner(settings.sysRoot(), settings.devRoot()).scan().functions().size();
            System.out.printf(Locale.ROOT, "tree: %d PCI functions in %s (%s); %d CPUs; report: %d lines, last: %s%n", functions, dir,
                    Files.getFileStore(dir).type(), Runtime.getRuntime().availableProcessors(), report.lines().count(),
                    report.lines().reduce((a, b) -> b).orElse(""));
            System.out.printf(Locale.ROOT, "first run in a fresh JVM: %.1f ms (tree written before it; JVM start to then %.0f ms)%n",
                    firstMs, (first - jvmStart) / 1e6);

            for (int i = 0; i < warmup; i++) run(settings, vfio);
            long[] nanos = new long[measured];
            long cpuStart = processCpuNanos();
            for (int i = 0; i < measured; i++) {
                long start = System.nanoTime();
                run(settings, vfio);
                nanos[i] = System.nanoTime() - start;
            }
            double cpu = (processCpuNanos() - cpuStart) / 1e6 / measured;
            Arrays.sort(nanos);
            System.out.printf(Locale.ROOT, "warm run: median %.1f ms, min %.1f ms, p90 %.1f ms; process CPU %.1f ms per run%n",
                    nanos[measured / 2] / 1e6, nanos[0] / 1e6, nanos[(int) (measured * 0.9)] / 1e6, cpu);
        } finally {
            Trees.deleteRecursively(dir);
        }
    }

    private static String run(DoctorSettings settings, VfioProbe vfio) {
        StringWriter out = new StringWriter();
        DoctorRun.run(settings, vfio, Optional::empty, false, new PrintWriter(out));
        return out.toString();
    }

    /** The kernel of a 64-CPU, two-socket Xeon host with VT-d and interrupt remapping on. */
    static void kernel(KernelLayer kernel) {
        String[][] interrupts = new String[300][];
        for (int i = 0; i < interrupts.length; i++) {
            interrupts[i] = i < 24 ? new String[] {Integer.toString(i), "IR-IO-APIC", i + "-edge", "irq" + i}
                    : new String[] {Integer.toString(i), "IR-PCI-MSIX-0000:17:00.0", (i - 24) + "-edge", "vfio-msix"};
        }
        kernel.dmar("dmar0", "c5ffc000", "8d2078c106f0466", "f020df").dmar("dmar1", "e0ffc000", "8d2078c106f0466", "f020df")
                .acpiTables("APIC", "DMAR", "FACP", "MCFG", "SRAT")
                .numaNodes(2, 32)
                .module("vfio", Map.of()).module("vfio_pci", Map.of())
                .module("vfio_iommu_type1", Map.of("allow_unsafe_interrupts", "N")).module("iommufd", Map.of("allow_unsafe_interrupts", "N"))
                .interrupts(64, interrupts)
                .proc("cmdline", "BOOT_IMAGE=/vmlinuz-6.8.0-48-generic root=/dev/sda1 ro intel_iommu=on iommu=pt\n")
                .proc("cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
