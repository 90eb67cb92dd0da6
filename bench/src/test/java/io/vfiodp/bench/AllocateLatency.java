package io.vfiodp.bench;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@link ServeBench}'s call latency: Allocate next to the empty GetDevicePluginOptions on one
 * channel, alternating so both see the same JIT state, GC and machine noise.
 */
final class AllocateLatency {

    private AllocateLatency() {}

    record Calls(double allocateP50Us, double allocateP99Us, String rss) {}

    static Calls measure(KubeletSimulator kubelet, String resource, long pid) throws Exception {
        String device = kubelet.watch(resource).awaitUpdate(u -> u.getDevicesCount() > 0, Duration.ofSeconds(10)).getDevicesList().stream()
                .filter(d -> d.getHealth().equals("Healthy")).findFirst().orElseThrow().getID();
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(kubelet.stub(resource).getChannel());
        AllocateRequest allocate = AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(device)).build();
        Empty empty = Empty.getDefaultInstance();
        for (int i = 0; i < ServeBench.WARMUP; i++) {
            stub.allocate(allocate);
            stub.getDevicePluginOptions(empty);
        }
        long[] alloc = new long[ServeBench.CALLS];
        long[] opts = new long[ServeBench.CALLS];
        String rss = null;
        // Alternate the two calls so both see the same JIT state, GC and machine noise.
        for (int i = 0; i < ServeBench.CALLS; i++) {
            if (ServeBench.WARMUP + i == ServeBench.RSS_AFTER) rss = MemoryMap.vmRss(pid);
            long a = System.nanoTime();
            stub.allocate(allocate);
            long b = System.nanoTime();
            stub.getDevicePluginOptions(empty);
            long c = System.nanoTime();
            alloc[i] = b - a;
            opts[i] = c - b;
        }
        Arrays.sort(alloc);
        Arrays.sort(opts);
        System.out.printf("Allocate               p50 %6.1f us  p99 %6.1f us  (%d calls after %d warm-up, one channel)%n", us(alloc, 50),
                us(alloc, 99), ServeBench.CALLS, ServeBench.WARMUP);
        System.out.printf("GetDevicePluginOptions p50 %6.1f us  p99 %6.1f us  (%d calls, same run)%n", us(opts, 50), us(opts, 99), ServeBench.CALLS);
        System.out.printf("Allocate p50 / empty-call p50 = %.2f%n", us(alloc, 50) / us(opts, 50));
        System.out.println("VmRSS after registration and " + ServeBench.RSS_AFTER + " allocations: " + rss);
        System.out.println("VmRSS after registration and " + (ServeBench.WARMUP + ServeBench.CALLS) + " allocations: " + MemoryMap.vmRss(pid));
        return new Calls(us(alloc, 50), us(alloc, 99), rss);
    }

    static double us(long[] sorted, int percentile) {
        int i = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[i] / 1000.0;
    }

}
