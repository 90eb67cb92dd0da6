package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.serve.ServedHost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fifty kubelet restarts at random intervals while Allocate calls run, against the plugin serving
 * a fixture copy as {@code serve} does (scan and policy, plugin-dir watch, /dev/vfio watch). The
 * seed is printed; {@code -Dstorm.seed=N} replays a run.
 *
 * <p>"Level" means, for this JVM: the number of live Java threads, the number of entries in
 * {@code /proc/self/fd}, and the number of inotify watches ({@code inotify wd:} lines in
 * {@code /proc/self/fdinfo}). It is read once the plugin has registered with a kubelet that
 * already restarted twice (so every lazily started pool and loaded class is in it) and no call
 * is running; after the storm no count may be above it (and no thread name that was not in it)
 * once a bounded wait for stragglers has passed.
 */
class KubeletRestartStormTest {

    private static final Path HGX = Path.of("src/test/resources/sysfs-fixtures/hgx-8gpu");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int RESTARTS = 50;
    private static final int CALLERS = 3;

    @TempDir Path temp;

    @Test
    void fiftyRestartsDuringAllocationsLeaveOneRegistrationPerResourceCurrentStreamsAndNoLeak() throws Exception {
        long seed = Long.getLong("storm.seed", System.nanoTime());
        System.out.println("kubelet restart storm: seed " + seed + " (replay with -Dstorm.seed=" + seed + ")");
        Random random = new Random(seed);
        long t0 = System.nanoTime();

        try (ServedHost node = ServedHost.start(HGX, temp, Duration.ofHours(1), PluginListener.NONE)) {
            KubeletSimulator kubelet = node.kubelet;
            Map<String, DesiredResource> expected = expectedResources(node);
            List<String> names = List.copyOf(expected.keySet());
            String gpus = names.stream().filter(n -> expected.get(n).devices().size() == 8).findFirst().orElseThrow();
            List<ExposedDevice> gpuDevices = expected.get(gpus).devices();
            kubelet.awaitRegistrations(names, 1, WAIT);

            // Warm-up: two restarts and calls, so that the baseline holds everything a restart starts once for good.
            for (int i = 0; i < 2; i++) {
                kubelet.restart();
                awaitEachRegisteredOnce(kubelet, names);
                allocateAndCheck(kubelet, gpus, gpuDevices.get(i));
            }
            for (String n : names) kubelet.watch(n).awaitUpdates(1, WAIT);
            ProcessLevels base = ProcessLevels.now();

            AtomicBoolean storming = new AtomicBoolean(true);
            AtomicInteger inFlight = new AtomicInteger();
            AtomicInteger granted = new AtomicInteger();
            Map<String, Integer> failures = new ConcurrentHashMap<>();
            List<String> wrong = new CopyOnWriteArrayList<>();
            List<Thread> callers = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                Random own = new Random(seed + c + 1);
                Thread t = new Thread(() -> {
                    while (storming.get()) {
                        ExposedDevice d = gpuDevices.get(own.nextInt(gpuDevices.size()));
                        DevicePluginGrpc.DevicePluginBlockingStub stub;
                        try {
                            stub = kubelet.stub(gpus);
                        } catch (IllegalStateException e) {
                            // The simulator holds no connection to the plugin between a restart and the re-registration.
                            failures.merge("not registered", 1, Integer::sum);
                            pause();
                            continue;
                        }
                        inFlight.incrementAndGet();
                        try {
                            ContainerAllocateResponse r = stub.allocate(request(d)).getContainerResponses(0);
                            if (!describe(r).equals(expectedAnswer(d))) wrong.add(describe(r) + " for " + d.id());
                            granted.incrementAndGet();
                        } catch (StatusRuntimeException e) {
                            failures.merge(e.getStatus().getCode().name(), 1, Integer::sum);
                            if (!transportLoss(e.getStatus())) wrong.add(d.id() + ": " + e.getStatus());
                        } finally {
                            inFlight.decrementAndGet();
                        }
                    }
                }, "storm-allocate-" + c);
                t.start();
                callers.add(t);
            }
            int duringAllocate = 0;
            long stormStart = System.nanoTime();
            for (int i = 0; i < RESTARTS; i++) {
                // The storm itself: restarts at random intervals of 0 to 100 ms.
                Thread.sleep(random.nextInt(101));
                // Every other restart waits (briefly) for an Allocate to be on the wire, so that many hit one.
                if (random.nextBoolean()) awaitInFlight(inFlight);
                if (inFlight.get() > 0) duringAllocate++;
                kubelet.restart();
            }
            long stormMs = (System.nanoTime() - stormStart) / 1_000_000;
            storming.set(false);
            for (Thread t : callers) t.join(WAIT.toMillis());

            awaitEachRegisteredOnce(kubelet, names);
            for (String n : names) {
                List<String> listed = ids(expected.get(n));
                kubelet.watch(n).awaitUpdate(u -> u.getDevicesList().stream().map(d -> d.getID() + " " + d.getHealth()).toList().equals(listed), WAIT);
            }
            allocateAndCheck(kubelet, gpus, gpuDevices.get(7));
            ProcessLevels after = ProcessLevels.awaitBackTo(base, WAIT);
            awaitNothingPending(node.runtime);
            Map<String, Long> registered = kubelet.registrationsSinceRestart().stream()
                    .collect(Collectors.groupingBy(KubeletSimulator.Registration::resourceName, Collectors.counting()));

            System.out.printf("kubelet restart storm: %d restarts in %d ms, %d during an Allocate; %d Allocates granted, failed: %s;"
                    + " level before %s, after %s; test took %d ms%n", RESTARTS, stormMs, duringAllocate, granted.get(), failures, base, after,
                    (System.nanoTime() - t0) / 1_000_000);
            assertThat(wrong).as("answers other than a correct grant or a lost connection").isEmpty();
            assertThat(duringAllocate).as("restarts while an Allocate was in flight").isGreaterThanOrEqualTo(RESTARTS / 5);
            assertThat(granted.get()).isPositive();
            assertThat(registered).as("registrations with the kubelet running now").isEqualTo(
                    names.stream().collect(Collectors.toMap(Function.identity(), n -> 1L)));
            assertThat(Leaks.sockets(kubelet.dir())).containsExactlyInAnyOrderElementsOf(socketsFor(kubelet.dir(), names));
        }
    }

    private static AllocateRequest request(ExposedDevice d) {
        return AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(d.id())).build();
    }

    /**
     * The storm's aim, not a check: up to 200 ms for a call to be on the wire, then restart anyway
     * (so no Awaitility, which would fail). It spins so as not to miss a call that lasts well under a poll interval.
     */
    private static void awaitInFlight(AtomicInteger inFlight) {
        long deadline = System.nanoTime() + 200_000_000L;
        while (inFlight.get() == 0 && System.nanoTime() < deadline) Thread.onSpinWait();
    }

    private static void pause() {
        try {
            // The load generator's own pace while the simulator has no connection: not a wait for a condition.
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<String, DesiredResource> expectedResources(ServedHost node) throws java.io.IOException {
        TargetState state = new ScanPolicySource(new SysfsScanner(node.host.sys(), node.host.dev())::scan, Optional.empty(),
                PciIds.bundled()).read();
        return state.plugins().resources().values().stream()
                .collect(Collectors.toMap(r -> r.name().value(), Function.identity(), (a, b) -> a, java.util.TreeMap::new));
    }

    private static List<String> ids(DesiredResource r) {
        return r.devices().stream().map(d -> d.id() + " " + d.health().wireValue()).toList();
    }

    private static List<String> socketsFor(Path dir, List<String> names) {
        List<String> all = new ArrayList<>(List.of(KubeletSimulator.SOCKET));
        for (String n : names) all.add(SocketNames.forResource(dir, io.vfiodp.policy.ResourceName.of(n)));
        return all;
    }

    private static void awaitEachRegisteredOnce(KubeletSimulator kubelet, List<String> names) {
        await("every resource registered with the current kubelet").atMost(WAIT).pollInterval(Duration.ofMillis(10)).untilAsserted(() ->
                assertThat(kubelet.registrationsSinceRestart()).as(() -> "registrations with the current kubelet (rejections "
                        + kubelet.rejections() + ")").extracting(KubeletSimulator.Registration::resourceName).containsAll(names));
    }

    /**
     * Waits until the plugin has no registration to make: a late second one would come from a
     * retry still pending, or from a kubelet change or removed socket the plugin has not looked
     * at yet. A check asked for now runs before the status read after it (one thread, in order),
     * so every resource registered with the kubelet that check saw means none is left.
     */
    private static void awaitNothingPending(ServedPlugins runtime) {
        await("every resource registered, after a fresh check").atMost(WAIT).untilAsserted(() -> {
            runtime.loop().requestSweep();
            assertThat(runtime.loop().status().get(30, TimeUnit.SECONDS)).as("resources not registered with the current kubelet")
                    .filteredOn(s -> !s.registered()).isEmpty();
        });
    }

    private static void allocateAndCheck(KubeletSimulator kubelet, String resource, ExposedDevice d) {
        assertThat(describe(kubelet.allocate(resource, List.of(List.of(d.id()))).getContainerResponses(0))).isEqualTo(expectedAnswer(d));
    }

    private static String expectedAnswer(ExposedDevice d) {
        return "{PCI_RESOURCE_NVIDIA_COM_GH100_H100_SXM5_80GB=" + d.id() + "} [/dev/vfio/vfio, /dev/vfio/" + d.iommuGroup() + "]";
    }

    private static String describe(ContainerAllocateResponse r) {
        return r.getEnvsMap() + " " + r.getDevicesList().stream().map(DeviceSpec::getHostPath).toList();
    }

    /** What a call gets when the kubelet's connection to the plugin went away under it. */
    private static boolean transportLoss(Status s) {
        return s.getCode() == Status.Code.UNAVAILABLE || s.getCode() == Status.Code.CANCELLED;
    }
}
