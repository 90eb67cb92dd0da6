package io.vfiodp.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The guest's command channel (its second serial port, see {@code src/test/kernel/init.sh}): one
 * shell script at a time, sent as {@code ID BASE64}; the guest answers {@code @@OUT ID}, the
 * output (stdout and stderr together) in base64 lines, and {@code @@RC ID STATUS}.
 */
final class GuestShell implements AutoCloseable {

    /** What a script did. */
    record Result(int status, String output) {}

    private final LineChannel channel;
    private long nextId = 1;

    GuestShell(LineChannel channel) {
        this.channel = channel;
    }

    /** Waits for the guest's {@code @@READY}: init has mounted everything and loaded the modules. */
    void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new IOException("the guest did not announce @@READY within " + timeout);
            if (channel.next(Duration.ofNanos(left)).equals("@@READY")) return;
        }
    }

    synchronized Result run(String script, Duration timeout) throws IOException, InterruptedException {
        long id = nextId++;
        channel.send(id + " " + Base64.getEncoder().encodeToString(script.getBytes(StandardCharsets.UTF_8)));
        long deadline = System.nanoTime() + timeout.toNanos();
        StringBuilder encoded = new StringBuilder();
        boolean inOutput = false;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new IOException("guest command " + id + " did not finish within " + timeout + ": " + script);
            String line = channel.next(Duration.ofNanos(left));
            if (line.equals("@@OUT " + id)) {
                inOutput = true;
            } else if (line.startsWith("@@RC " + id + " ")) {
                String output = new String(Base64.getMimeDecoder().decode(encoded.toString()), StandardCharsets.UTF_8);
                return new Result(Integer.parseInt(line.substring(("@@RC " + id + " ").length()).trim()), output);
            } else if (inOutput) {
                encoded.append(line);
            }
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
