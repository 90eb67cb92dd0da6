package io.vfiodp.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Kubernetes clients on the JDK's HTTP client that let go of their connections when closed. fabric8's
 * JDK transport only stops its executor on close: the JDK client's pooled connections and selector thread
 * then live until a garbage collection finds the client, so a closed client keeps its sockets (and any
 * server waiting for them to end) open.
 */
public final class KubeClients {

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private KubeClients() {}

    /** A client configured the standard way (in-cluster service account, kubeconfig, environment). */
    public static KubernetesClient standard() {
        return new KubernetesClientBuilder().withHttpClientFactory(new ClosingFactory()).build();
    }

    public static KubernetesClient of(Config config) {
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new ClosingFactory()).build();
    }

    /** One factory per Kubernetes client: every JDK client it builds belongs to that client and ends with it. */
    private static final class ClosingFactory extends JdkHttpClientFactory {
        private final List<HttpClient> built = new CopyOnWriteArrayList<>();

        @Override
        protected HttpClient.Builder createNewHttpClientBuilder() {
            return new Tracking(super.createNewHttpClientBuilder(), built);
        }

        @Override
        protected void closeHttpClient(JdkHttpClientImpl client) {
            super.closeHttpClient(client);
            for (HttpClient c : built) c.shutdownNow();
            // the connections close on the client's selector thread: wait for it, so that a closed client has closed them
            for (HttpClient c : built) {
                try {
                    c.awaitTermination(CLOSE_WAIT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            built.clear();
        }
    }

    private record Tracking(HttpClient.Builder delegate, List<HttpClient> built) implements HttpClient.Builder {
        @Override public HttpClient.Builder cookieHandler(CookieHandler h) { delegate.cookieHandler(h); return this; }
        @Override public HttpClient.Builder connectTimeout(Duration d) { delegate.connectTimeout(d); return this; }
        @Override public HttpClient.Builder sslContext(SSLContext c) { delegate.sslContext(c); return this; }
        @Override public HttpClient.Builder sslParameters(SSLParameters p) { delegate.sslParameters(p); return this; }
        @Override public HttpClient.Builder executor(Executor e) { delegate.executor(e); return this; }
        @Override public HttpClient.Builder followRedirects(HttpClient.Redirect r) { delegate.followRedirects(r); return this; }
        @Override public HttpClient.Builder version(HttpClient.Version v) { delegate.version(v); return this; }
        @Override public HttpClient.Builder priority(int p) { delegate.priority(p); return this; }
        @Override public HttpClient.Builder proxy(ProxySelector p) { delegate.proxy(p); return this; }
        @Override public HttpClient.Builder authenticator(Authenticator a) { delegate.authenticator(a); return this; }
        @Override public HttpClient.Builder localAddress(InetAddress a) { delegate.localAddress(a); return this; }

        @Override
        public HttpClient build() {
            HttpClient client = delegate.build();
            built.add(client);
            return client;
        }
    }
}
