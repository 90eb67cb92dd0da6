package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Clients that hold the port (half-sent requests, a slowloris, idle connections, oversized
 * headers) while the kubelet asks {@code /healthz} and {@code /readyz}. Every wait is an upper
 * bound far above what the answer needs; what is asserted is that the answer comes, or that the
 * server closes the connection, never how fast.
 */
class SlowClientsTest {

    /** The half-sent requests held open at once: the count the slowloris used. */
    private static final int HELD = 200;
    /** A probe's answer, or the server closing a connection, within this; far above the request time. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String HALF_SENT = "GET /healthz HTTP/1.1\r\nHost: x\r\n";

    private MetricsServer server;
    private final List<Socket> clients = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry, new ServingMetrics(registry, "v", Clock.systemUTC()),
                () -> CompletableFuture.completedFuture(List.of()), Duration.ofSeconds(2));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : clients) s.close();
        server.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        clients.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", server.port()));
        return s;
    }

    private Socket send(String request) throws IOException {
        Socket s = connect();
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** The status line of {@code path}'s answer on a fresh connection, read within {@link #WAIT}. */
    private String probe(String path) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()));
            s.setSoTimeout((int) WAIT.toMillis());
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return statusLine(s.getInputStream());
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) line.append((char) c);
        return line.toString();
    }

    /** True once the server has closed {@code s}: a read sees the end of the stream or a reset, not a timeout. */
    private static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout((int) WAIT.toMillis());
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void probesAnswerWhileHalfSentRequestsHoldConnectionsOpen() throws IOException {
        for (int i = 0; i < HELD; i++) send(HALF_SENT);

        assertThat(probe("/healthz")).isEqualTo("HTTP/1.1 200 OK");
        assertThat(probe("/readyz")).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void probesAnswerWhileIdleConnectionsAreOpen() throws IOException {
        for (int i = 0; i < HELD; i++) connect();

        assertThat(probe("/healthz")).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void theServerClosesHalfSentAndTrickledRequestsThatDoNotArriveInTime() throws IOException {
        Socket halfSent = send(HALF_SENT);
        Socket slow = send(HALF_SENT);
        OutputStream out = slow.getOutputStream();
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        try {
            // a header byte every half second: the request's clock runs from its first byte, so trickling does not extend it
            trickle.scheduleAtFixedRate(() -> {
                try {
                    out.write('X');
                    out.flush();
                } catch (IOException closed) {
                    throw new IllegalStateException("closed", closed);
                }
            }, 0, 500, TimeUnit.MILLISECONDS);

            assertThat(closedByServer(halfSent)).as("a half-sent request closed by the server").isTrue();
            assertThat(closedByServer(slow)).as("a trickled request closed by the server").isTrue();
        } finally {
            trickle.shutdownNow();
        }
    }

    @Test
    void headersLargerThanTheLimitCloseTheConnectionUnanswered() throws IOException {
        Socket large = send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + "x".repeat(16 * 1024) + "\r\n\r\n");

        assertThat(closedByServer(large)).as("a request with 16 KiB of headers closed unanswered").isTrue();
    }
}
