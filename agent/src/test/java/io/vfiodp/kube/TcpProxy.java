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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Forwards a local port to the mock API server. {@link #cut()} plays an API server that goes
 * away: it resets every open connection, watches included (the mock server's own shutdown leaves
 * upgraded watch connections open), and every new one, counting them ({@link #awaitRefused}: a
 * client has seen the outage); {@link #restore()} forwards again.
 */
public final class TcpProxy implements AutoCloseable {

    private final int port;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile ServerSocket listener;
    private volatile boolean cut;

    public TcpProxy(int targetPort) {
        this.port = MockKubeApi.freePort();
        this.targetPort = targetPort;
        restore();
    }

    public int port() {
        return port;
    }

    public synchronized void restore() {
        cut = false;
        if (listener != null && !listener.isClosed()) return;
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            listener = s;
            Thread t = new Thread(() -> accept(s), "tcp-proxy-accept");
            t.setDaemon(true);
            t.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized void cut() {
        cut = true;
        refused.set(0);
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(s);
        }
        open.clear();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                if (cut) {
                    reset(client);
                    refused.incrementAndGet();
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getByName("127.0.0.1"), targetPort);
                open.add(client);
                open.add(upstream);
                pump(client, upstream, "tcp-proxy-pump");
                pump(upstream, client, "tcp-proxy-pump");
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Copies {@code from} to {@code to} on a daemon thread named {@code threadName}; closes both when either side ends. */
    static void pump(Socket from, Socket to, String threadName) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // connection reset: the other pump closes its side below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    /** Waits until {@code n} connections were refused since {@link #cut()}: a client has tried that often to come back. */
    public void awaitRefused(int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() >= n);
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // already closed
        }
        closeQuietly(s);
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        cut();
        closeQuietly(listener);
    }
}
