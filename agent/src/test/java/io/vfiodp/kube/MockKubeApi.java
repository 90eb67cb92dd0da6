package io.vfiodp.kube;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A fabric8 mock API server in CRUD mode (real watches) on a port of our choosing, so a test can
 * point a client at it before it runs, stop it, and start a new one on the same port. Dry runs store
 * nothing, as on a real API server, and {@link #dropDeviceTaints} plays one without DRADeviceTaints. Expectations
 * ({@link #server()}{@code .expect()}) take precedence over the CRUD store.
 */
public final class MockKubeApi implements AutoCloseable {

    private final int port;
    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final OffLoopWatchDispatcher dispatcher;

    /** On {@code port}, or on one the kernel picks when it is 0. */
    private MockKubeApi(int port) {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        this.dispatcher = new OffLoopWatchDispatcher(responses);
        this.server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), responses, dispatcher, false);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.port = server.getPort();
        // the test's own hand on the API: a generous request time, so that a first call to a cold mock server on a busy
        // machine does not fail a test that is about something else
        this.client = clientFor(this.port, 30_000);
    }

    /**
     * On a port the kernel picks as the server binds it: a port found free and bound later could be taken
     * in between by another test JVM (surefire runs two) or another build on the machine.
     */
    public static MockKubeApi start() {
        return new MockKubeApi(0);
    }

    public static MockKubeApi startOn(int port) {
        return new MockKubeApi(port);
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client for the API on {@code port}, usable before a server listens there; short timeouts, no retries. */
    public static KubernetesClient clientFor(int port) {
        return clientFor(port, 5_000);
    }

    private static KubernetesClient clientFor(int port, int requestTimeoutMillis) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + port)
                .withNamespace("test")
                .withConnectionTimeout(2_000)
                .withRequestTimeout(requestTimeoutMillis)
                .withRequestRetryBackoffLimit(0)
                .withWatchReconnectInterval(100)
                .withHttp2Disable(true)
                .build();
        return KubeClients.of(config);
    }

    public int port() {
        return port;
    }

    public KubernetesMockServer server() {
        return server;
    }

    /**
     * From now on, plays an API server whose feature gate DRADeviceTaints is off ({@code true}) or on:
     * ResourceSlice writes, dry runs included, lose their devices' taints while it is off.
     */
    public void dropDeviceTaints(boolean drop) {
        dispatcher.rules().dropDeviceTaints(drop);
    }

    /** A client for the test's own reads and writes. */
    public KubernetesClient client() {
        return client;
    }

    /** Registers our trimmed KubeVirt CRD, as the CRUD store needs it to know the kind is namespaced. */
    public MockKubeApi withKubeVirtCrd() {
        createKubeVirtCrd(client);
        return this;
    }

    /** Creates the trimmed KubeVirt CRD of src/test/resources/kubevirt through {@code client} (any API server, e.g. a TLS mock). */
    public static void createKubeVirtCrd(KubernetesClient client) {
        try (InputStream in = Files.newInputStream(Checkout.path("agent", "src/test/resources/kubevirt/kubevirt-crd.yaml"))) {
            CustomResourceDefinition crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
            client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Registers our trimmed VirtualMachineInstance CRD, as the CRUD store needs it to know the kind is namespaced. */
    public MockKubeApi withVmiCrd() {
        try (InputStream in = Files.newInputStream(Checkout.path("agent", "src/test/resources/kubevirt/vmi-crd.yaml"))) {
            client.apiextensions().v1().customResourceDefinitions().resource(Serialization.unmarshal(in, CustomResourceDefinition.class)).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The Events the plugin posted (in {@code default}, where Node events go). */
    public List<Event> nodeEvents() {
        return client.v1().events().inNamespace("default").list().getItems();
    }

    /** The Events in {@code default} once there are at least {@code n} (waits up to 10 s; fewer when they never come). */
    public List<Event> awaitEvents(int n) {
        try {
            return await().atMost(Duration.ofSeconds(30)).until(this::nodeEvents, events -> events.size() >= n);
        } catch (ConditionTimeoutException e) {
            return nodeEvents();
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
