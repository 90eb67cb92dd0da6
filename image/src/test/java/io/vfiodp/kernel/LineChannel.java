package io.vfiodp.kernel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A line-based conversation over a unix socket that QEMU serves (a chardev): lines are read by a
 * thread of its own into a queue, so that every wait has a timeout. The thread ends when the
 * socket closes.
 */
final class LineChannel implements AutoCloseable {

    /** What the reader thread puts last: the socket closed, or failed. */
    private static final String END = "\0end";

    private final String name;
    private final SocketChannel channel;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private LineChannel(String name, SocketChannel channel) {
        this.name = name;
        this.channel = channel;
        this.reader = new Thread(this::read, "guest-" + name + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects to {@code socket}, waiting up to {@code timeout} for QEMU to create it; {@code process} must stay alive meanwhile. */
    static LineChannel connect(String name, Path socket, Duration timeout, Process process) throws IOException {
        AtomicReference<SocketChannel> connected = new AtomicReference<>();
        try {
            Awaitility.await(name + " socket " + socket).atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> {
                if (!process.isAlive()) throw new IOException("QEMU exited with status " + process.exitValue() + " before serving " + socket);
                if (!Files.exists(socket)) return false;
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    ch.connect(UnixDomainSocketAddress.of(socket));
                } catch (IOException notYetListening) {
                    ch.close();
                    return false;
                }
                connected.set(ch);
                return true;
            });
        } catch (ConditionTimeoutException e) {
            throw new IOException("no " + name + " socket at " + socket + " within " + timeout, e);
        }
        return new LineChannel(name, connected.get());
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) lines.add(line.replace("\r", ""));
        } catch (IOException e) {
            // the socket closed under the reader: the conversation is over
        } finally {
            lines.add(END);
        }
    }

    void send(String line) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        synchronized (channel) {
            while (bytes.hasRemaining()) channel.write(bytes);
        }
    }

    /** The next line, waiting at most {@code timeout}. */
    String next(Duration timeout) throws IOException, InterruptedException {
        String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) throw new IOException("no line on the " + name + " channel within " + timeout);
        if (line.equals(END)) {
            lines.add(END);
            throw new IOException("the " + name + " channel closed");
        }
        return line;
    }

    @Override
    public void close() throws IOException {
        channel.close();
        try {
            reader.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
