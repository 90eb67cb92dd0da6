package io.vfiodp.policy;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What the serve command pays on every rescan (policy evaluation of a large host) and once at
 * start (loading pci.ids). The host: 256 passthrough GPUs with an audio companion each, 8 SR-IOV
 * vGPU PFs with 32 VFs each, 4 mdev parents with 16 mdevs each, and plain devices up to 2,000
 * PCI functions.
 *
 * <p>Run: {@code ./mvnw -B -q test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.vfiodp.policy.PolicyBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PolicyBenchmark {

    private HostSnapshot host;
    private PciIds pciIds;
    private PermittedHostDevices config;

    @Setup
    public void setUp() throws IOException {
        host = largeHost();
        pciIds = PciIds.bundled();
        config = new PermittedHostDevices(List.of(
                new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true),
                new PciHostDevice("10DE:26B9", "nvidia.com/L40S_VGPU", true),
                new PciHostDevice("8086:1520", "intel.com/I350_VF", true)),
                List.of(new MediatedHostDevice("GRID_T4-1B", "nvidia.com/GRID_T4-1B", true)));
    }

    static HostSnapshot largeHost() {
        SnapshotBuilder b = new SnapshotBuilder();
        int functions = 0;
        int group = 0;
        for (int i = 0; i < 256; i++) {
            String slot = String.format("%04x:%02x:00", 1 + i / 128, i % 128);
            b.gpu(slot + ".0", 0x1eb8, group).numa(i % 2);
            b.fn(slot + ".1").id(0x10de, 0x10f9).cls(0x040300).group(group).numa(i % 2);
            group++;
            functions += 2;
        }
        for (int pf = 0; pf < 8; pf++) {
            String bus = String.format("0003:%02x", pf * 8);
            b.gpu(bus + ":00.0", 0x26b9, group++).driver("nvidia").pf(32);
            functions++;
            for (int vf = 0; vf < 32; vf++) {
                String address = String.format("0003:%02x:%02x.%x", pf * 8 + 1 + vf / 32, (vf / 8) + 1, vf % 8);
                b.gpu(address, 0x26b9, group++).driver("nvidia").physfn(bus + ":00.0");
                b.vgpuVf(address, bus + ":00.0", vf % 2 == 0 ? 1147 : 1148, vf % 2 == 0 ? "NVIDIA L40S-4Q" : "NVIDIA L40S-8Q");
                functions++;
            }
        }
        for (int p = 0; p < 4; p++) {
            String parent = String.format("0004:%02x:00.0", p);
            b.gpu(parent, 0x1eb8, group++).driver("nvidia");
            functions++;
            for (int m = 0; m < 16; m++) {
                b.mdev(String.format("%08x-0000-4000-8000-%012x", p, m), "nvidia-222", "GRID T4-1B", parent, group++);
            }
        }
        for (int i = 0; functions < 2000; i++, functions++) {
            String address = String.format("0005:%02x:%02x.%x", i / 256, (i / 8) % 32, i % 8);
            if (i % 10 == 0) {
                b.fn(address).id(0x8086, 0x1520).cls(0x020000).group(group++);
            } else {
                b.fn(address).id(0x8086, 0x1521).cls(0x020000).driver("igb").group(group++);
            }
        }
        return b.build();
    }

    @Benchmark
    public PolicyResult evaluateDefaultMode() {
        return PolicyEngine.evaluate(host, Optional.empty(), pciIds);
    }

    @Benchmark
    public PolicyResult evaluateWithConfiguration() {
        return PolicyEngine.evaluate(host, Optional.of(config), pciIds);
    }

    /** Start-up cost: decompress the bundled copy, index vendors, parse NVIDIA's block for one name. */
    @Benchmark
    public Optional<String> loadBundledPciIdsAndNameOneGpu() throws IOException {
        return PciIds.bundled().deviceName(0x10de, 0x1eb8);
    }

    public static void main(String[] args) throws RunnerException {
        // forks(0): under exec:java the class path is Maven's, which a forked JVM would not see
        new Runner(new OptionsBuilder().include(PolicyBenchmark.class.getSimpleName()).forks(0).build()).run();
    }
}
