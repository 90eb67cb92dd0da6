package io.vfiodp.serve;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vfiodp.dra.Claims;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.model.DeviceNames;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.testkit.ManualClock;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.NodeResource;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.pods.NodePods;
import io.vfiodp.testkit.pods.PodResourcesServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node on which serve switches resources between the device plugins and DRA: a copy of the
 * t4-numa fixture (one resource, {@value #T4}: 0000:1a:00.0, 0000:1b:00.0 and 0000:b1:00.0 healthy,
 * 0000:b2:00.0 without its group node), the device-plugin kubelet on a clock the test moves, the DRA
 * kubelet, the node's pods and their PodResources, and an API server with the Node. serve runs in
 * this JVM and is restarted with another {@code --dra-resources} as an operator's rollout does.
 */
final class SwitchNode implements AutoCloseable {

    static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    static final String NODE = "node-a";
    static final String DRIVER = DraSettings.DEFAULT_DRIVER;
    static final Duration WAIT = Duration.ofSeconds(30);

    final Path root;
    final HostTree host;
    final Path plugins;
    final Path registry;
    final ManualClock clock = new ManualClock(Instant.parse("2026-05-04T10:00:00Z"));
    final KubeletSimulator kubelet;
    final DraKubeletSimulator draKubelet;
    final NodePods pods = new NodePods();
    final PodResourcesServer podResources;
    final MockKubeApi api;
    private final AtomicInteger claims = new AtomicInteger();
    private ServeApp serve;
    private DraRouting routing = DraRouting.NONE;

    SwitchNode(Path root) throws IOException {
        this.root = root;
        this.host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), root.resolve("node"));
        this.plugins = Files.createDirectories(root.resolve("device-plugins"));
        this.registry = Files.createDirectories(root.resolve("plugins_registry"));
        this.kubelet = KubeletSimulator.start(plugins, clock);
        this.draKubelet = new DraKubeletSimulator(registry, DraKubeletSimulator.KUBELET_136);
        this.podResources = PodResourcesServer.start(root.resolve("pod-resources.sock"), pods::list);
        this.api = MockKubeApi.start().withVmiCrd();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    }

    ServeConfig config(DraRouting routing) {
        return new ServeConfig(host.sys(), host.dev(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins, false,
                Optional.of("the test's mock API server"), Optional.of(NODE), Optional.of(Duration.ofHours(1)), UeventMode.off, "", "",
                new ServeConfig.Vgpu(false, root.resolve("state"), podResources.socket()),
                new ServeConfig.Dra(routing, DRIVER, registry, Optional.of(root.resolve("plugins").resolve(DRIVER)), root.resolve("cdi"), false), "test");
    }

    /** Starts serve with {@code routing}; when a DRA driver runs, the kubelet's plugin watcher registers it. */
    SwitchNode serve(DraRouting next) {
        routing = next;
        try {
            serve = ServeApp.start(config(next), UeventSocket::open, () -> MockKubeApi.clientFor(api.port()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            // a driver runs when some resource goes to DRA, and where it ran before
            boolean driver = next.routesAny() || Files.isDirectory(root.resolve("plugins").resolve(DRIVER));
            if (driver) {
                await().atMost(WAIT).until(() -> !draKubelet.registrationSockets().isEmpty());
                draKubelet.register(draKubelet.registrationSockets().getFirst());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Whether a DRA driver runs: its registration socket is there. */
    boolean draDriverRuns() throws IOException {
        return !draKubelet.registrationSockets().isEmpty();
    }

    /** SIGTERM, then serve again with {@code next}: the kubelet keeps each stopped resource, Unhealthy, for its grace. */
    SwitchNode restart(DraRouting next) {
        stop();
        draKubelet.restart();
        return serve(next);
    }

    void stop() {
        if (serve != null) serve.close();
        serve = null;
    }

    /** One more pass now, as the rescan a waiting device asks for would bring. */
    void pass() {
        serve.node().rescanNow();
    }

    /** What the kubelet may allocate of {@value #T4} through the device plugin now (by the grace rule, on the test's clock). */
    Set<String> allocatable() {
        return kubelet.resource(T4).map(NodeResource::healthy).orElse(Set.of());
    }

    /** The devices the pool's slices list without our taint: what the scheduler may allocate through DRA (by device ID). */
    Set<String> sliceOffers() {
        Set<String> out = new TreeSet<>();
        for (ResourceSlice s : api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems()) {
            for (Device d : s.getSpec().getDevices()) {
                if (d.getTaints() == null || d.getTaints().isEmpty()) out.add(idOf(d.getName()));
            }
        }
        return out;
    }

    /** {@code pci-0000-1a-00-0} → {@code 0000:1a:00.0}. */
    static String idOf(String device) {
        return DeviceNames.idOf(device).orElseThrow();
    }

    static String nameOf(String id) {
        return "pci-" + id.replace(':', '-').replace('.', '-');
    }

    /** A pod asking one device through the device plugin; the device it got, if it runs. */
    Optional<String> admit(String pod) {
        return switch (pods.admit(kubelet, "vms", pod, T4, 1)) {
            case NodePods.Admission.Admitted a -> Optional.of(a.devices().getFirst());
            case NodePods.Admission.Refused r -> Optional.empty();
        };
    }

    /** A pod whose claim the scheduler allocated to device {@code id} of this node's pool; whether it runs (its claim prepared). */
    boolean runWithClaim(String pod, String id) {
        ResourceClaim claim = Claims.allocated(pod + "-gpu", "uid-" + claims.incrementAndGet(), Claims.result("gpu", DRIVER, NODE, nameOf(id)));
        // the API server gives the claim its UID
        String uid = Claims.create(api.client(), claim).getMetadata().getUid();
        try {
            if (draKubelet.registrationSockets().isEmpty()) return false;
            return pods.run(draKubelet, "vms", pod, DraKubeletSimulator.claim("vms", pod + "-gpu", uid)).isEmpty();
        } catch (IllegalStateException | io.grpc.StatusRuntimeException noDriver) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The pod ends: its devices are freed and its claims unprepared (the kubelet asks the driver that prepared them). */
    Map<String, String> end(String pod) {
        return pods.end("vms", pod, Optional.of(draKubelet));
    }

    /** The devices claims hold, by device ID. */
    Set<String> claimHeld() {
        Set<String> out = new TreeSet<>();
        for (String d : pods.claimHeld()) out.add(idOf(d.substring(d.lastIndexOf('/') + 1)));
        return out;
    }

    void awaitAllocatable(Set<String> devices) {
        await().atMost(WAIT).until(this::allocatable, devices::equals);
    }

    void awaitSliceOffers(Set<String> devices) {
        await().atMost(WAIT).until(this::sliceOffers, devices::equals);
    }

    /** Who holds which device, as serve last read it. */
    io.vfiodp.holders.HolderView holders() {
        return serve.holders();
    }

    DraRouting routing() {
        return routing;
    }

    @Override
    public void close() {
        stop();
        draKubelet.close();
        kubelet.close();
        podResources.close();
        api.close();
    }

}
