package io.vfiodp.kube;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Forwards a local port to the mock API server. {@link #cut()} plays an API server that goes
 * away: it stops listening and resets every open connection, watches included (the mock server's
 * own shutdown leaves upgraded watch connections open). {@link #restore()} listens again.
 */
public final class TcpProxy implements AutoCloseable {

    private final int port;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket listener;

    public TcpProxy(int targetPort) {
        this.port = MockKubeApi.freePort();
        this.targetPort = targetPort;
        restore();
    }

    public int port() {
        return port;
    }

    public synchronized void restore() {
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
        closeQuietly(listener);
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
    }
}
