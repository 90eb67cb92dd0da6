package io.vfiodp.kube;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What stands between the plugin and the API server, misbehaving on demand: it forwards to the
 * mock API server, refuses connections, or answers every request with one kind of garbage. Each
 * switch resets every open connection, watches included, as an API server that restarts does.
 *
 * <p>With {@link #expireWatchesAndAnswerListsWith}, it plays a restarted API server that lost its
 * watch history, behind the same address as a replica that does not serve the CRD yet: every
 * watch is answered with an {@code ERROR} event "410 Expired", which makes the client list again,
 * and every list gets the given answer. That is the only way garbage reaches a client's list once
 * it runs: the client retries a broken watch by itself, and lists only after a 410.
 */
public final class FlakyApiFront implements AutoCloseable {

    public enum Fault {
        /** Forwards every byte both ways. */
        NONE,
        /** Every connection is reset as soon as it is made: an API server that is not there. */
        DOWN,
        /** HTTP 200, JSON content type, a body that is not JSON. */
        GARBAGE_JSON,
        /** Bytes that are not HTTP at all. */
        GARBAGE_BYTES,
        /** What kube-apiserver answers for a custom resource before its CRD handlers are installed (Go's 404 page). */
        NOT_FOUND_PAGE,
        /** HTTP 500 with a Status, as when etcd is unavailable. */
        SERVER_ERROR
    }

    static final String NOT_JSON = "{\"apiVersion\": \"kubevirt.io/v1\", \"kind\": \"KubeVirtList\", \"items\": [{]";
    static final String NOT_FOUND_PAGE_BODY = "404 page not found\n";
    static final String SERVER_ERROR_STATUS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"etcdserver: request timed out\",\"reason\":\"InternalError\",\"code\":500}";

    private final int port;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Random random = new Random(7);
    private volatile Fault fault = Fault.NONE;
    private volatile boolean watchesExpire;
    // requests since the last set(): answered by the fault, and forwarded to the API server
    private final AtomicInteger faulted = new AtomicInteger();
    private final AtomicInteger forwarded = new AtomicInteger();
    private ServerSocket listener;

    public FlakyApiFront(int targetPort) {
        this.port = MockKubeApi.freePort();
        this.targetPort = targetPort;
        listen();
    }

    public int port() {
        return port;
    }

    /** From now on behave as {@code next}; open connections are reset. */
    public synchronized void set(Fault next) {
        watchesExpire = false;
        apply(next);
    }

    /** From now on answer every watch "410 Expired" and every other request as {@code lists} says; open connections are reset. */
    public synchronized void expireWatchesAndAnswerListsWith(Fault lists) {
        watchesExpire = true;
        apply(lists);
    }

    private void apply(Fault next) {
        fault = next;
        faulted.set(0);
        forwarded.set(0);
        for (Socket s : open) reset(s);
        open.clear();
    }

    /** Waits until {@code n} requests met the fault set last: the client has lived through it, whatever its timing. */
    public void awaitFaulted(int n) {
        await().atMost(Duration.ofSeconds(20)).until(() -> faulted.get() >= n);
    }

    /** Waits until {@code n} requests were forwarded since the last {@link #set}: the client is back. */
    public void awaitForwarded(int n) {
        await().atMost(Duration.ofSeconds(20)).until(() -> forwarded.get() >= n);
    }

    private synchronized void listen() {
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            listener = s;
            Thread t = new Thread(() -> accept(s), "flaky-api-accept");
            t.setDaemon(true);
            t.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                if (fault == Fault.DOWN) {
                    faulted.incrementAndGet();
                    reset(client);
                    continue;
                }
                open.add(client);
                daemon(() -> serve(client), "flaky-api-conn");
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try {
            byte[] head = readHead(client.getInputStream());
            Fault now = fault;
            String head0 = new String(head, StandardCharsets.ISO_8859_1);
            if (watchesExpire && head0.lines().findFirst().orElse("").contains("watch=true")) {
                expireWatch(client, head0);
            } else if (now == Fault.NONE) {
                forwarded.incrementAndGet();
                Socket upstream = new Socket(InetAddress.getByName("127.0.0.1"), targetPort);
                open.add(upstream);
                upstream.getOutputStream().write(head);
                TcpProxy.pump(client, upstream, "flaky-api-pump");
                TcpProxy.pump(upstream, client, "flaky-api-pump");
            } else {
                faulted.incrementAndGet();
                answer(client, switch (now) {
                    case GARBAGE_JSON -> response("200 OK", "application/json", NOT_JSON);
                    case NOT_FOUND_PAGE -> response("404 Not Found", "text/plain; charset=utf-8", NOT_FOUND_PAGE_BODY);
                    case SERVER_ERROR -> response("500 Internal Server Error", "application/json", SERVER_ERROR_STATUS);
                    default -> garbageBytes();
                });
            }
        } catch (IOException e) {
            TcpProxy.closeQuietly(client);
        }
    }

    private static final String EXPIRED = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"too old resource version: 3 (4711)\",\"reason\":\"Expired\",\"code\":410}}";

    /** Accepts the watch (a WebSocket upgrade, RFC 6455) and sends one ERROR event, then closes. */
    private static void expireWatch(Socket client, String head) throws IOException {
        String key = head.lines().filter(l -> l.regionMatches(true, 0, "Sec-WebSocket-Key:", 0, 18)).map(l -> l.substring(18).trim())
                .findFirst().orElse(null);
        if (key == null) {
            answer(client, response("200 OK", "application/json", EXPIRED + "\n"));
            return;
        }
        String accept;
        try {
            accept = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("SHA-1")
                    .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.ISO_8859_1)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] event = EXPIRED.getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept
                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(0x81);
        out.write(126);
        out.write(event.length >> 8);
        out.write(event.length & 0xff);
        out.write(event);
        out.write(new byte[] {(byte) 0x88, 2, 0x03, (byte) 0xe8});
        try (client; OutputStream o = client.getOutputStream()) {
            o.write(out.toByteArray());
            o.flush();
            // Closing with the client's answer unread would reset the connection, perhaps before the client read the
            // event: close once it answered our close frame with its own, or hung up (bounded, should it do neither).
            client.setSoTimeout((int) CLIENT_CLOSE_WAIT.toMillis());
            awaitCloseFrame(client.getInputStream());
        } catch (java.net.SocketTimeoutException e) {
            // the client neither answered nor hung up: close anyway
        }
    }

    private static final Duration CLIENT_CLOSE_WAIT = Duration.ofSeconds(5);
    private static final int CLOSE_OPCODE = 0x8;

    /** Reads the client's WebSocket frames (RFC 6455 5.2; a client masks every frame) until a close frame or the end of the stream. */
    private static void awaitCloseFrame(InputStream in) throws IOException {
        java.io.DataInputStream frames = new java.io.DataInputStream(in);
        try {
            while (true) {
                int opcode = frames.readUnsignedByte() & 0x0f;
                int second = frames.readUnsignedByte();
                long length = second & 0x7f;
                if (length == 126) length = frames.readUnsignedShort();
                else if (length == 127) length = frames.readLong();
                if ((second & 0x80) != 0) frames.skipNBytes(4);
                frames.skipNBytes(length);
                if (opcode == CLOSE_OPCODE) return;
            }
        } catch (java.io.EOFException e) {
            // hung up
        }
    }

    /** The request line and headers, up to the blank line. */
    private static byte[] readHead(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
        int matched = 0;
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toByteArray();
    }

    private static void answer(Socket client, byte[] response) {
        try (client; OutputStream out = client.getOutputStream()) {
            out.write(response);
            out.flush();
        } catch (IOException e) {
            // the client gave up first
        }
    }

    private static byte[] response(String status, String contentType, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return ("HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + b.length
                + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    private synchronized byte[] garbageBytes() {
        byte[] b = new byte[512];
        random.nextBytes(b);
        return b;
    }

    private static void daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // already closed
        }
        TcpProxy.closeQuietly(s);
    }

    @Override
    public synchronized void close() {
        set(Fault.DOWN);
        TcpProxy.closeQuietly(listener);
    }
}
