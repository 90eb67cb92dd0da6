package io.vfiodp.serve;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vfiodp.holders.Holder;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.Holding;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.pods.NodePods;
import io.vfiodp.testkit.pods.PodResourcesServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A node whose pods hold devices through the device plugins: a copy of a fixture, the kit's kubelet,
 * its pods and their PodResources, serve in this JVM, and, when asked, an API server with the Node
 * and the VMIs (or an address where none answers). serve follows the KubeVirt CR when it has an API,
 * as by default, so it watches the node's pods.
 */
final class HolderNode implements AutoCloseable {

    static final String NODE = "node-a";
    static final Duration WAIT = Duration.ofSeconds(30);

    /** Which API serve gets. */
    enum Api { NONE, UP, DOWN }

    final HostTree host;
    final Path plugins;
    final KubeletSimulator kubelet;
    final NodePods pods = new NodePods();
    final PodResourcesServer podResources;
    final Optional<MockKubeApi> api;
    private final int apiPort;
    final ServeApp serve;

    HolderNode(Path root, String fixture, Api api) throws IOException {
        this.host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures").resolve(fixture), root.resolve("node"));
        this.plugins = Files.createDirectories(root.resolve("device-plugins"));
        this.kubelet = KubeletSimulator.start(plugins);
        this.podResources = PodResourcesServer.start(root.resolve("pod-resources.sock"), pods::list);
        this.api = api == Api.UP ? Optional.of(MockKubeApi.start().withKubeVirtCrd().withVmiCrd()) : Optional.empty();
        this.apiPort = this.api.map(MockKubeApi::port).orElseGet(MockKubeApi::freePort);
        this.api.ifPresent(a -> a.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create());
        ServeConfig config = new ServeConfig(host.sys(), host.dev(), Path.of("/proc"), Optional.empty(), Optional.empty(), plugins,
                api != Api.NONE, api == Api.NONE ? Optional.empty() : Optional.of("the test's API server"), Optional.of(NODE),
                Optional.of(Duration.ofHours(1)), UeventMode.off, "127.0.0.1:0", "",
                new ServeConfig.Vgpu(false, root.resolve("state"), podResources.socket()), ServeConfig.Dra.OFF, "test");
        this.serve = ServeApp.start(config, UeventSocket::open, () -> MockKubeApi.clientFor(apiPort));
    }

    /** Waits until the kubelet lists {@code device} of {@code resource} Healthy. */
    HolderNode awaitListed(String resource, String device) throws Exception {
        kubelet.awaitRegistrations(List.of(resource), 1, WAIT);
        kubelet.watch(resource).awaitUpdate(u -> u.getDevicesList().stream().anyMatch(d -> d.getID().equals(device)
                && d.getHealth().equals("Healthy")), WAIT);
        return this;
    }

    HolderView view() {
        return serve.holders();
    }

    Holding holding(String device) {
        return view().holding(device).orElse(Holding.FREE);
    }

    /** The holders of {@code device} once it has some. */
    List<Holder> awaitHeld(String device) {
        return await().atMost(WAIT).until(() -> holding(device) instanceof Holding.Held h ? h.holders() : null, h -> h != null);
    }

    @Override
    public void close() {
        serve.close();
        api.ifPresent(MockKubeApi::close);
        podResources.close();
        kubelet.close();
    }
}
