package io.vfiodp.dra;

import static org.awaitility.Awaitility.await;

import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.dra.classes.ClassVerdict;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.triggers.DirectoryWatcher;
import io.vfiodp.triggers.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A node with a kubelet (the simulator), an API server (the fabric8 mock in CRUD mode, with this
 * node's Node object) and our DRA driver, all in the test's directory.
 */
public final class DraHarness implements AutoCloseable {

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-05-04T10:00:00Z"), ZoneOffset.UTC);

    public final Path root;
    public final DraSettings settings;
    public final MockKubeApi api;
    public final KubernetesClient driverClient;
    public final DraKubeletSimulator kubelet;
    /** What the driver told its listener, in order: {@code health <resource> <device> <from> -> <to>}, {@code prepare failed: <reason>}. */
    public final List<String> heard = new CopyOnWriteArrayList<>();
    /** The DeviceClass verdicts the driver told its listener, each time one changed. */
    public final List<SortedMap<ResourceName, ClassVerdict>> classes = new CopyOnWriteArrayList<>();
    private final DraListener listener = new DraListener() {
        @Override
        public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
            heard.add("health " + resource.value() + " " + deviceId + " " + from.wireValue() + " -> " + to.wireValue()
                        + (to instanceof Health.Unhealthy(String reason) ? ": " + reason : ""));
        }

        @Override
        public void prepareFailed(String reason) {
            heard.add("prepare failed: " + reason);
        }

        @Override
        public void deviceClasses(SortedMap<ResourceName, ClassVerdict> before, SortedMap<ResourceName, ClassVerdict> now) {
            classes.add(now);
        }
    };
    public DraDriver driver;
    /** What the kubelet's PodResources answers the driver; by default it cannot be read. */
    public volatile Supplier<PodResourcesReading> pods = () -> new PodResourcesReading.Unreadable("the harness has no PodResources");

    DraHarness(Path root, List<String> kubeletServices) {
        this(root, kubeletServices, DraNodes.settings(root));
    }

    /** A driver with {@code settings} (its directories under {@code root}), the kubelet knowing v1 and v1beta1. */
    DraHarness(Path root, DraSettings settings) {
        this(root, DraKubeletSimulator.KUBELET_136, settings);
    }

    private DraHarness(Path root, List<String> kubeletServices, DraSettings settings) {
        this.root = root;
        this.settings = settings;
        try {
            Files.createDirectories(settings.registryDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.api = MockKubeApi.start();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(DraNodes.NODE).endMetadata().build()).create();
        this.driverClient = MockKubeApi.clientFor(api.port());
        this.kubelet = new DraKubeletSimulator(settings.registryDir(), kubeletServices);
    }

    public DraHarness(Path root) {
        this(root, DraKubeletSimulator.KUBELET_136);
    }

    /** Starts the driver serving {@code state}, and has the kubelet register it. */
    public DraHarness start(TargetState state) {
        startDriver(state);
        registerOnce();
        return this;
    }

    void startDriver(TargetState state) {
        try {
            driver = DraDriver.start(settings, driverClient, CLOCK, Ticker.SYSTEM, listener, DirectoryWatcher.ownThread("dra-harness-dir-watch"),
                    () -> pods.get());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        driver.apply(state);
    }

    /** The kubelet's plugin watcher finds the registration socket and registers the plugin behind it. */
    public DraKubeletSimulator.Registered registerOnce() {
        await().atMost(Duration.ofSeconds(30)).until(() -> kubelet.registrationSockets().size() == 1);
        try {
            return kubelet.register(kubelet.registrationSockets().getFirst());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void restartDriver(TargetState state) {
        driver.close();
        kubelet.restart();
        start(state);
    }

    public List<ResourceSlice> slices() {
        return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
    }

    @Override
    public void close() {
        if (driver != null) driver.close();
        kubelet.close();
        driverClient.close();
        api.close();
    }
}
