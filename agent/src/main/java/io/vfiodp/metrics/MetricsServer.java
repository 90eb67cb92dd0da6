package io.vfiodp.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.dra.DraStatus;
import io.vfiodp.plugin.ResourceStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP endpoints for Prometheus and the kubelet's probes, on the JDK's own HTTP server:
 * {@code /metrics} (text format), {@code /healthz} (the reconcile loop, and the DRA driver when it
 * runs, answer a status request within {@code answerWithin}: a wedged loop fails liveness even
 * though the process is up) and {@code /readyz} (some device of the node can be passed through, and
 * every served resource, and the DRA driver, is registered with the kubelet).
 *
 * <p>No client can hold the probes: each request is read and answered on a thread of its own
 * ({@link ExchangeThreads}, at most {@value #MAX_EXCHANGES} at once), and the server's limits
 * ({@link HttpServerLimits}) close a request that does not arrive in time.
 */
public final class MetricsServer implements AutoCloseable {

    static final String THREAD_NAME = "vfio-dp-metrics";
    /**
     * Requests read or answered at once. The kubelet's two probes and a scrape need three; the rest
     * is room for clients that hold requests open, each for at most the request time. Each
     * costs a thread and the server's buffers (tens of KiB of heap) while it lasts.
     */
    static final int MAX_EXCHANGES = 256;
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.metrics");

    private final HttpServer server;
    private final ExchangeThreads executor;
    private final PrometheusRegistry registry;
    private final ServingMetrics metrics;
    private final Supplier<CompletableFuture<List<ResourceStatus>>> status;
    private final Optional<Supplier<CompletableFuture<DraStatus>>> draStatus;
    private final Supplier<Optional<String>> nothingToPassThrough;
    private final Duration answerWithin;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    /**
     * What one server answers: everything on one address (the default), or {@code /metrics} and
     * the probes on addresses of their own ({@code --probe-address}), so that the port the kubelet
     * probes can be closed to every other client.
     */
    public enum Endpoints {
        ALL, METRICS, PROBES;

        boolean metrics() {
            return this != PROBES;
        }

        boolean probes() {
            return this != METRICS;
        }
    }

    /** The answers of both loops; the DRA driver's only when it runs. */
    private record Standing(List<ResourceStatus> resources, Optional<DraStatus> dra) {}

    private MetricsServer(HttpServer server, ExchangeThreads executor, PrometheusRegistry registry, ServingMetrics metrics,
                          Supplier<CompletableFuture<List<ResourceStatus>>> status, Optional<Supplier<CompletableFuture<DraStatus>>> draStatus,
                          Supplier<Optional<String>> nothingToPassThrough, Duration answerWithin) {
        this.server = server;
        this.executor = executor;
        this.registry = registry;
        this.metrics = metrics;
        this.status = status;
        this.draStatus = draStatus;
        this.nothingToPassThrough = nothingToPassThrough;
        this.answerWithin = answerWithin;
    }

    /** As the longer {@code start}, without a DRA driver. */
    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry, ServingMetrics metrics,
                                      Supplier<CompletableFuture<List<ResourceStatus>>> status, Duration answerWithin) throws IOException {
        return start(address, registry, metrics, status, Optional.empty(), answerWithin);
    }

    /**
     * Binds {@code address} and serves.
     *
     * @param status    the reconcile loop's status request ({@code ReconcileLoop::status})
     * @param draStatus the DRA driver's ({@code DraDriver::status}), when it runs
     */
    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry, ServingMetrics metrics,
                                      Supplier<CompletableFuture<List<ResourceStatus>>> status,
                                      Optional<Supplier<CompletableFuture<DraStatus>>> draStatus, Duration answerWithin) throws IOException {
        return start(address, registry, metrics, status, draStatus, Optional::empty, answerWithin);
    }

    /**
     * As above; {@code /readyz} also fails while {@code nothingToPassThrough} says why no device of the
     * node can be passed through (doctor's failing checks).
     */
    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry, ServingMetrics metrics,
                                      Supplier<CompletableFuture<List<ResourceStatus>>> status,
                                      Optional<Supplier<CompletableFuture<DraStatus>>> draStatus,
                                      Supplier<Optional<String>> nothingToPassThrough, Duration answerWithin) throws IOException {
        return start(address, Endpoints.ALL, registry, metrics, status, draStatus, nothingToPassThrough, answerWithin);
    }

    /** As above, answering only {@code endpoints}; any other path is 404. */
    public static MetricsServer start(InetSocketAddress address, Endpoints endpoints, PrometheusRegistry registry, ServingMetrics metrics,
                                      Supplier<CompletableFuture<List<ResourceStatus>>> status,
                                      Optional<Supplier<CompletableFuture<DraStatus>>> draStatus,
                                      Supplier<Optional<String>> nothingToPassThrough, Duration answerWithin) throws IOException {
        String limits = HttpServerLimits.apply();
        HttpServer server;
        try {
            // the accept queue holds a burst as large as the requests served at once; a connection the
            // queue had no room for waits for the client's SYN to be sent again, a second or more later
            server = HttpServer.create(address, MAX_EXCHANGES);
        } catch (IOException e) {
            throw new IOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
        }
        ExchangeThreads executor = new ExchangeThreads(THREAD_NAME, MAX_EXCHANGES);
        MetricsServer ms = new MetricsServer(server, executor, registry, metrics, status, draStatus, nothingToPassThrough, answerWithin);
        if (endpoints.metrics()) server.createContext("/metrics", ms::metrics);
        if (endpoints.probes()) {
            server.createContext("/healthz", ms::healthz);
            server.createContext("/readyz", ms::readyz);
        }
        server.setExecutor(executor);
        server.start();
        switch (endpoints) {
            case ALL -> log.info("metrics on http://{}:{}/metrics, probes /healthz and /readyz", address.getHostString(), ms.port());
            case METRICS -> log.info("metrics on http://{}:{}/metrics (the probes on --probe-address)", address.getHostString(), ms.port());
            case PROBES -> log.info("probes on http://{}:{}/healthz and /readyz", address.getHostString(), ms.port());
        }
        log.debug("HTTP server: at most {} requests at once; {}", MAX_EXCHANGES, limits);
        return ms;
    }

    /** The bound port (the real one when started on port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Both loops' answers, or empty when one did not answer within {@code answerWithin}. */
    private Optional<Standing> standing() {
        long deadline = System.nanoTime() + answerWithin.toNanos();
        try {
            CompletableFuture<List<ResourceStatus>> resources = status.get();
            Optional<CompletableFuture<DraStatus>> dra = draStatus.map(Supplier::get);
            List<ResourceStatus> r = resources.get(answerWithin.toNanos(), TimeUnit.NANOSECONDS);
            Optional<DraStatus> d = Optional.empty();
            if (dra.isPresent()) d = Optional.of(dra.get().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            return Optional.of(new Standing(r, d));
        } catch (TimeoutException | ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private String loops() {
        return draStatus.isPresent() ? "reconcile loop and DRA driver" : "reconcile loop";
    }

    private void metrics(HttpExchange exchange) throws IOException {
        standing().ifPresent(s -> {
            metrics.resources(s.resources());
            s.dra().ifPresent(metrics::dra);
        });
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writer.write(body, registry.scrape());
        respond(exchange, 200, writer.getContentType(), body.toByteArray());
    }

    private void healthz(HttpExchange exchange) throws IOException {
        long start = System.nanoTime();
        Optional<Standing> s = standing();
        if (s.isPresent()) {
            text(exchange, 200, "ok: " + loops() + " answered in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms\n");
        } else {
            text(exchange, 503, loops() + " did not answer within " + answerWithin.toMillis() + " ms\n");
        }
    }

    private void readyz(HttpExchange exchange) throws IOException {
        Optional<Standing> s = standing();
        if (s.isEmpty()) {
            text(exchange, 503, loops() + " did not answer within " + answerWithin.toMillis() + " ms\n");
            return;
        }
        Optional<String> nothing = nothingToPassThrough.get();
        if (nothing.isPresent()) {
            text(exchange, 503, "not ready: no device of this node can be passed through: " + nothing.get() + "\n");
            return;
        }
        List<String> waiting = new ArrayList<>(s.get().resources().stream().filter(r -> !r.registered()).map(r -> r.name().value()).toList());
        if (s.get().dra().isPresent() && !s.get().dra().get().isRegistered()) waiting.add("the DRA driver");
        if (waiting.isEmpty()) {
            text(exchange, 200, "ready: " + s.get().resources().size() + " resource(s)" + (s.get().dra().isPresent() ? " and the DRA driver" : "")
                    + " registered with the kubelet\n");
        } else {
            text(exchange, 503, "not registered with the kubelet: " + String.join(", ", waiting) + "\n");
        }
    }

    private static void text(HttpExchange exchange, int code, String body) throws IOException {
        respond(exchange, code, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange exchange, int code, String contentType, byte[] body) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            boolean head = exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(code, head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
