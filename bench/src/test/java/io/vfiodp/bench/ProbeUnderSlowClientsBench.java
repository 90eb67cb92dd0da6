package io.vfiodp.bench;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.metrics.MetricsServer;
import io.vfiodp.metrics.ServingMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What clients that hold the metrics port do to the kubelet's probes: {@code /healthz} asked as the
 * kubelet asks it (a fresh connection, a 5 s timeout as deploy/base's probes have) with no other
 * client, then while {@code --held} connections each hold a half-sent request, then while as many
 * connections sit idle, sending nothing. Prints each probe's answer and time, the process's threads,
 * resident memory and heap after a GC while the requests are held, and when the server closed them.
 * The server runs in this process, with serve's settings; the status it reports answers at once.
 * Usage: {@code java -cp 'target/vfio-device-plugin.jar:target/test-classes:target/demo-lib/*'
 * io.vfiodp.bench.ProbeUnderSlowClientsBench [--held N]}.
 */
public final class ProbeUnderSlowClientsBench {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
    private static final String HALF_SENT = "GET /healthz HTTP/1.1\r\nHost: x\r\n";

    private ProbeUnderSlowClientsBench() {}

    public static void main(String[] args) throws Exception {
        int held = args.length == 2 && args[0].equals("--held") ? Integer.parseInt(args[1]) : 200;
        PrometheusRegistry registry = new PrometheusRegistry();
        try (MetricsServer server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry,
                new ServingMetrics(registry, "bench", Clock.systemUTC()), () -> CompletableFuture.completedFuture(List.of()),
                Duration.ofSeconds(2))) {
            int port = server.port();
            for (int i = 0; i < 5; i++) probe(port);
            System.out.printf("no other client:                 /healthz %s; %s%n", probe(port), process());

            List<Socket> halfSent = open(port, held, HALF_SENT);
            long sent = System.nanoTime();
            System.out.printf("%d half-sent requests held:     /healthz %s; %s%n", held, probe(port), process());
            System.out.printf("%d half-sent requests held:     %s%n", held, closedAfter(halfSent, sent));

            List<Socket> idle = open(port, held, "");
            long opened = System.nanoTime();
            System.out.printf("%d idle connections:            /healthz %s; %s%n", held, probe(port), process());
            System.out.printf("%d idle connections:            %s%n", held, closedAfter(idle, opened));
        }
    }

    private static List<Socket> open(int port, int count, String send) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket("127.0.0.1", port);
            if (!send.isEmpty()) s.getOutputStream().write(send.getBytes(StandardCharsets.US_ASCII));
            sockets.add(s);
        }
        return sockets;
    }

    /** The status line and the time it took, or that none came within the probe's timeout. */
    private static String probe(int port) {
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) PROBE_TIMEOUT.toMillis());
            s.setSoTimeout((int) PROBE_TIMEOUT.toMillis());
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) line.append((char) c);
            return String.format("'%s' in %.1f ms", line, (System.nanoTime() - start) / 1e6);
        } catch (SocketTimeoutException e) {
            return String.format("TIMED OUT after %.1f s (the kubelet counts a failure)", (System.nanoTime() - start) / 1e9);
        } catch (IOException e) {
            return "FAILED: " + e;
        }
    }

    /** When the server closed every one of {@code sockets}, counted from {@code since}. */
    private static String closedAfter(List<Socket> sockets, long since) throws IOException {
        long deadline = since + CLOSE_WAIT.toNanos();
        int open = 0;
        for (Socket s : sockets) {
            int left = (int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            s.setSoTimeout(left);
            try {
                if (s.getInputStream().read() != -1) open++;
            } catch (SocketTimeoutException e) {
                open++;
            } catch (IOException reset) {
                // closed by the server
            }
            s.close();
        }
        return open == 0 ? String.format("all closed by the server after %.1f s", (System.nanoTime() - since) / 1e9)
                : open + " still open after " + CLOSE_WAIT.toSeconds() + " s";
    }

    private static String process() throws IOException {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        String threads = "?";
        String rss = "?";
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Threads:")) threads = line.substring(8).strip();
            if (line.startsWith("VmRSS:")) rss = line.substring(6).strip();
        }
        return String.format("threads %s, RSS %s, heap after GC %.1f MiB", threads, rss, heap / 1048576.0);
    }
}
