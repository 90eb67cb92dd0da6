package io.vfiodp.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Runs diagnostic commands ({@code jcmd}) in another HotSpot JVM of the same user through its
 * attach socket, the way {@code jcmd} itself does, without starting a {@code jcmd} JVM per sample:
 * on the shared 2-core machine that would cost more CPU than the plugin under test.
 *
 * <p>Protocol 1 of the HotSpot attach listener (still accepted by current JDKs): the JVM listens
 * on {@code /tmp/.java_pid<pid>} once asked by a SIGQUIT while {@code .attach_pid<pid>} exists; a
 * request is {@code "1\0jcmd\0<command line>\0\0\0"}, the answer a result code line followed by
 * the command's output.
 */
final class HotSpotAttach {

    private static final Duration START_WAIT = Duration.ofSeconds(10);

    private final long pid;
    private final Path socket;

    private HotSpotAttach(long pid, Path socket) {
        this.pid = pid;
        this.socket = socket;
    }

    /** Makes {@code pid} start its attach listener, unless it runs one already. */
    static HotSpotAttach to(long pid) throws IOException, InterruptedException {
        Path socket = Path.of("/tmp/.java_pid" + pid);
        if (!isSocket(socket)) {
            Path trigger = Path.of("/tmp/.attach_pid" + pid);
            Files.deleteIfExists(trigger);
            Files.createFile(trigger);
            try {
                // Not ProcessHandle.destroy: that sends TERM or KILL, and only QUIT with the trigger file starts the listener.
                Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).redirectErrorStream(true).start();
                if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                    throw new IOException("kill -QUIT " + pid + " failed: " + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                }
                long deadline = System.nanoTime() + START_WAIT.toNanos();
                while (!isSocket(socket)) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("JVM " + pid + " opened no attach socket " + socket + " within " + START_WAIT.toSeconds() + " s");
                    }
                    Thread.sleep(20);
                }
            } finally {
                Files.deleteIfExists(trigger);
            }
        }
        return new HotSpotAttach(pid, socket);
    }

    /** Runs one diagnostic command ({@code GC.run}, {@code GC.heap_info}...) and returns its output. */
    String jcmd(String commandLine) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ch.write(ByteBuffer.wrap(("1\0jcmd\0" + commandLine + "\0\0\0").getBytes(StandardCharsets.UTF_8)));
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            Channels.newInputStream(ch).transferTo(answer);
            String text = answer.toString(StandardCharsets.UTF_8);
            int eol = text.indexOf('\n');
            String code = (eol < 0 ? text : text.substring(0, eol)).trim();
            String output = eol < 0 ? "" : text.substring(eol + 1);
            if (!code.equals("0")) throw new IOException("jcmd " + commandLine + " in JVM " + pid + " failed (code " + code + "): " + output.trim());
            return output;
        }
    }

    private static boolean isSocket(Path p) {
        try {
            return Files.readAttributes(p, "unix:mode", LinkOption.NOFOLLOW_LINKS).get("mode") instanceof Integer mode
                    && (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
