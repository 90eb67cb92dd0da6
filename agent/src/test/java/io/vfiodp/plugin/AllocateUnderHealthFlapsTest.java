package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vfiodp.serve.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 16 kubelet clients, one channel each, call Allocate and GetPreferredAllocation 5,000 times each
 * on {@code serve} (its own JVM, on a t4-numa copy) while two T4s flap: their {@code /dev/vfio}
 * group nodes are removed and re-created, as unbinding and rebinding vfio-pci does, and the
 * plugin's /dev/vfio watch rescans.
 *
 * <p>Documented refusals only: {@code FAILED_PRECONDITION} naming the first unhealthy device of
 * the request. Every answer is one the pure functions give for one consistent view: a granted
 * Allocate is exactly {@link Allocation}'s answer (the env var lists exactly the IDs, the device
 * specs exactly their groups), a preferred allocation is {@link PreferredAllocation}'s for one of
 * the four health states the flapping T4s can be in. The seed is printed; {@code -Dflap.seed=N} replays it.
 */
class AllocateUnderHealthFlapsTest {

    private static final Path T4_NUMA = Path.of("src/test/resources/sysfs-fixtures/t4-numa");
    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final int THREADS = 16;
    private static final int CALLS = 5_000;
    private static final Map<String, Integer> FLAPPING = Map.of("0000:1a:00.0", 24, "0000:b1:00.0", 64);
    // Its group node is missing in the fixture: Unhealthy from start to end.
    private static final String NEVER_HEALTHY = "0000:b2:00.0";
    /**
     * Generous: a serve JVM of its own starts and scans first, which takes many times its quiet time on a 2-core
     * machine that other builds and the other test fork share.
     */
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir Path temp;

    @Test
    void sixteenClientsTimesFiveThousandCallsWhileTwoDevicesFlapGetOnlyConsistentAnswersOrDocumentedRefusals() throws Exception {
        long seed = Long.getLong("flap.seed", System.nanoTime());
        System.out.println("allocate under health flaps: seed " + seed + " (replay with -Dflap.seed=" + seed + ")");
        HostTree host = HostTree.copy(T4_NUMA, temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        TargetState initial = new ScanPolicySource(new SysfsScanner(host.sys(), host.dev())::scan, Optional.empty(), PciIds.bundled()).read();
        ResourceView healthyView = ResourceView.allOf(initial).get(ResourceName.of(T4));
        List<ResourceView> possibleViews = possibleViews(initial);
        List<String> ids = List.copyOf(healthyView.devices().keySet());
        assertThat(ids).containsExactly("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", NEVER_HEALTHY);

        EpollEventLoopGroup clientLoop = new EpollEventLoopGroup(2);
        try (KubeletSimulator kubelet = KubeletSimulator.start(plugins)) {
            Process serve = ServeJvm.start(host.sys().getParent(), plugins, temp.resolve("serve.log"));
            try {
                kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
                Path socket = plugins.resolve(kubelet.registrations().getFirst().endpoint());

                AtomicBoolean flapping = new AtomicBoolean(true);
                AtomicInteger flaps = new AtomicInteger();
                Thread flapper = new Thread(() -> flap(host, new Random(seed), flapping, flaps), "health-flapper");
                Map<String, Integer> outcomes = new ConcurrentHashMap<>();
                List<String> wrong = new CopyOnWriteArrayList<>();
                List<Thread> clients = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    Random random = new Random(seed + t + 1);
                    clients.add(new Thread(() -> {
                        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                                .channelType(EpollDomainSocketChannel.class).eventLoopGroup(clientLoop).directExecutor()
                                .withOption(ChannelOption.SO_KEEPALIVE, null).usePlaintext().overrideAuthority("localhost").build();
                        try {
                            DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channel);
                            for (int i = 0; i < CALLS && wrong.size() < 20; i++) {
                                String outcome = i % 2 == 0 ? allocate(stub, random, ids, healthyView, wrong)
                                        : prefer(stub, random, ids, possibleViews, wrong);
                                outcomes.merge(outcome, 1, Integer::sum);
                            }
                        } finally {
                            channel.shutdownNow();
                        }
                    }, "kubelet-client-" + t));
                }
                long start = System.nanoTime();
                long serveCpuBefore = serve.info().totalCpuDuration().orElseThrow().toMillis();
                flapper.start();
                clients.forEach(Thread::start);
                for (Thread c : clients) c.join(WAIT.toMillis() * 3);
                long callsMs = (System.nanoTime() - start) / 1_000_000;
                long serveCpuMs = serve.info().totalCpuDuration().orElseThrow().toMillis() - serveCpuBefore;
                flapping.set(false);
                flapper.join();

                int calls = outcomes.values().stream().mapToInt(Integer::intValue).sum();
                System.out.printf("allocate under health flaps: %d calls by %d clients in %d ms (%d calls/s; serve used %d ms CPU, %d us per call),"
                        + " %d flaps, outcomes %s%n", calls, THREADS, callsMs, calls * 1000L / Math.max(1, callsMs), serveCpuMs,
                        serveCpuMs * 1000 / Math.max(1, calls), flaps.get(), new java.util.TreeMap<>(outcomes));
                assertThat(wrong).as("errors other than the documented ones, or answers no consistent view gives").isEmpty();
                assertThat(calls).isEqualTo(THREADS * CALLS);
                assertThat(outcomes.get("Allocate refused: unhealthy")).as("refusals while devices were down").isPositive();
                assertThat(outcomes.get("Allocate granted")).isPositive();
                // Every group node is back: the stream ends on the host as it is.
                kubelet.watch(T4).awaitUpdate(u -> u.getDevicesList().stream().map(d -> d.getID() + " " + d.getHealth()).toList().equals(List.of(
                        "0000:1a:00.0 Healthy", "0000:1b:00.0 Healthy", "0000:b1:00.0 Healthy", NEVER_HEALTHY + " Unhealthy")), WAIT);
            } finally {
                serve.destroy();
                serve.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Removes and re-creates the flapping devices' group nodes at random until told to stop; leaves them all present. */
    private static void flap(HostTree host, Random random, AtomicBoolean flapping, AtomicInteger flaps) {
        Set<Integer> down = new HashSet<>();
        List<Integer> groups = List.copyOf(FLAPPING.values());
        try {
            while (flapping.get()) {
                int group = groups.get(random.nextInt(groups.size()));
                if (down.remove(group)) host.createGroupNode(group);
                else {
                    host.removeGroupNode(group);
                    down.add(group);
                }
                flaps.incrementAndGet();
                // The load itself: the next flap 0 to 20 ms later, at random.
                Thread.sleep(random.nextInt(21));
            }
            for (int group : down) host.createGroupNode(group);
        } catch (Exception e) {
            throw new IllegalStateException("flapping failed", e);
        }
    }

    /** The view for every combination of the flapping devices' health. */
    private static List<ResourceView> possibleViews(TargetState initial) {
        List<ResourceView> views = new ArrayList<>();
        List<String> flapping = List.copyOf(FLAPPING.keySet());
        for (int mask = 0; mask < 1 << flapping.size(); mask++) {
            Set<String> down = new java.util.HashSet<>();
            for (int i = 0; i < flapping.size(); i++) if ((mask & 1 << i) != 0) down.add(flapping.get(i));
            views.add(ResourceView.allOf(Devices.unhealthy(initial, down, "flapped")).get(ResourceName.of(T4)));
        }
        return views;
    }

    private static String allocate(DevicePluginGrpc.DevicePluginBlockingStub stub, Random random, List<String> ids, ResourceView healthy,
                                   List<String> wrong) {
        List<String> shuffled = new ArrayList<>(ids);
        Collections.shuffle(shuffled, random);
        int total = 1 + random.nextInt(ids.size());
        int firstContainer = random.nextBoolean() || total == 1 ? total : 1 + random.nextInt(total - 1);
        AllocateRequest.Builder b = AllocateRequest.newBuilder();
        b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(shuffled.subList(0, firstContainer)));
        if (firstContainer < total) {
            b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(shuffled.subList(firstContainer, total)));
        }
        AllocateRequest request = b.build();
        List<String> requested = shuffled.subList(0, total);
        try {
            AllocateResponse response = stub.withDeadlineAfter(10, TimeUnit.SECONDS).allocate(request);
            AllocateResponse expected = ((RpcOutcome.Granted<AllocateResponse>) Allocation.allocate(healthy, request)).response();
            if (!response.equals(expected)) wrong.add("Allocate " + requested + ": " + response + " instead of " + expected);
            if (requested.contains(NEVER_HEALTHY)) wrong.add("Allocate " + requested + " granted with " + NEVER_HEALTHY + " in it");
            return "Allocate granted";
        } catch (StatusRuntimeException e) {
            String first = firstUnhealthyNamed(e.getStatus());
            boolean documented = e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION && first != null
                    && (FLAPPING.containsKey(first) || first.equals(NEVER_HEALTHY))
                    && requested.contains(first) && !requested.subList(0, requested.indexOf(first)).contains(NEVER_HEALTHY);
            if (!documented) wrong.add("Allocate " + requested + ": " + e.getStatus());
            return "Allocate refused: unhealthy";
        }
    }

    private static String firstUnhealthyNamed(Status status) {
        String prefix = "Allocate " + T4 + ": device ";
        String d = status.getDescription();
        if (d == null || !d.startsWith(prefix) || !d.contains(" is unhealthy: ")) return null;
        return d.substring(prefix.length(), d.indexOf(" is unhealthy: "));
    }

    private static String prefer(DevicePluginGrpc.DevicePluginBlockingStub stub, Random random, List<String> ids, List<ResourceView> views,
                                 List<String> wrong) {
        List<String> available = new ArrayList<>(ids);
        Collections.shuffle(available, random);
        available = available.subList(0, 1 + random.nextInt(ids.size()));
        List<String> must = random.nextBoolean() ? List.of(available.get(0)) : List.of();
        int size = Math.max(1, must.size()) + random.nextInt(available.size() - Math.max(1, must.size()) + 1);
        PreferredAllocationRequest request = PreferredAllocationRequest.newBuilder().addContainerRequests(ContainerPreferredAllocationRequest
                .newBuilder().addAllAvailableDeviceIDs(available).addAllMustIncludeDeviceIDs(must).setAllocationSize(size)).build();
        try {
            PreferredAllocationResponse response = stub.withDeadlineAfter(10, TimeUnit.SECONDS).getPreferredAllocation(request);
            boolean consistent = views.stream().anyMatch(v -> PreferredAllocation.prefer(v, request) instanceof RpcOutcome.Granted<PreferredAllocationResponse> g
                    && g.response().equals(response));
            if (!consistent) wrong.add("GetPreferredAllocation " + available + " must " + must + " size " + size + ": " + response.getContainerResponses(0).getDeviceIDsList());
            return "GetPreferredAllocation granted";
        } catch (StatusRuntimeException e) {
            wrong.add("GetPreferredAllocation " + available + " must " + must + " size " + size + ": " + e.getStatus());
            return "GetPreferredAllocation refused";
        }
    }
}
