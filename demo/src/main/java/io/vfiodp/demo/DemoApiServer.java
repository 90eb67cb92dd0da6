package io.vfiodp.demo;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vfiodp.kube.KubeClients;
import java.net.InetAddress;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The demo's Kubernetes API: fabric8's mock API server in CRUD mode (objects are stored as written,
 * status included, and read back), on a free loopback port in the demo's process. The only class of
 * the demo that names the mock server, which the shipped jar does not hold (see {@link DraDemoPart}).
 */
final class DemoApiServer implements AutoCloseable {

    // Held for as long as the server runs: java.util.logging keeps its loggers weakly, and a level set
    // on a collected one is lost. The mock server logs every request at INFO, through the demo's output.
    private final Logger mockLog;
    private final KubernetesMockServer server;
    private final KubernetesClient client;

    private DemoApiServer(Logger mockLog, KubernetesMockServer server) {
        this.mockLog = mockLog;
        this.server = server;
        this.client = KubeClients.of(new ConfigBuilder(Config.empty()).withMasterUrl(url(server.getPort())).withNamespace("default")
                .withRequestRetryBackoffLimit(0).withHttp2Disable(true).build());
    }

    static DemoApiServer start() {
        Logger mockLog = Logger.getLogger("io.fabric8.mockwebserver");
        mockLog.setLevel(Level.WARNING);
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), new HashMap<>(),
                new DryRunsStoreNothing(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return new DemoApiServer(mockLog, server);
    }

    /**
     * The CRUD store, with a dry run ({@code ?dryRun=All}) answered as a real API server does: with
     * the object, storing nothing. The driver asks that way whether device taints are kept.
     */
    private static final class DryRunsStoreNothing extends KubernetesCrudDispatcher {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            boolean write = request.getMethod().equals("POST") || request.getMethod().equals("PUT");
            if (!write || !request.getPath().contains("dryRun=All")) return super.dispatch(request);
            return new MockResponse().setResponseCode(request.getMethod().equals("POST") ? 201 : 200).setBody(request.getUtf8Body());
        }
    }

    private static String url(int port) {
        return "http://127.0.0.1:" + port;
    }

    /** What serve gets as its API, in {@code KUBERNETES_MASTER}. */
    String url() {
        return url(server.getPort());
    }

    /** The demo's own client: the scheduler's and the admin's writes. */
    KubernetesClient client() {
        return client;
    }

    /** Returns once the server's threads have ended, netty's global executor's too (it ends a second after its last task). */
    @Override
    public void close() throws InterruptedException {
        client.close();
        server.destroy();
        mockLog.setLevel(null);
        GlobalEventExecutor.INSTANCE.awaitInactivity(5, TimeUnit.SECONDS);
    }
}
