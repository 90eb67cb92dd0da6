package io.vfiodp.dra.kubelet;

import io.grpc.BindableService;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.kubelet.SocketServer;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.ProblemLog;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's two gRPC servers and their sockets: the DRA service ({@code <pluginDir>/dra.sock})
 * and the registration service ({@code <registryDir>/<driver>-reg.sock}). {@link #ensure} starts
 * whichever is not running or whose socket file is no longer the one it created: the kubelet's
 * plugin watcher registers a plugin when its socket appears, so a socket deleted under us (the
 * directory wiped and re-created, a kubelet reinstall) is re-created, and the kubelet registers us
 * again. The DRA server comes first (the kubelet dials it as soon as it registers us), and when it
 * is restarted the registration socket is too, so that the kubelet connects afresh. Failures are
 * retried with backoff and logged once per distinct problem. Confined to the driver's thread.
 */
public final class PluginSockets implements AutoCloseable {

    /** {@code registerapi.DRAPlugin}: the plugin kind the kubelet's plugin watcher is told. */
    public static final String TYPE = "DRAPlugin";
    /**
     * The services of the DRA socket, as the kubelet names them: it uses the first of the node
     * services it knows ({@code validateSupportedServices}), so v1 comes first, and it watches health
     * only when the health service is listed.
     */
    public static final List<String> SERVICES = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final EventLoopGroup group;
    private final Executor handlers;
    private final Backoff backoff;
    private final Served dra;
    private final Served registration;

    /**
     * @param beforeDraStop ends the DRA server's open streams (health), which would otherwise hold its
     *                      shutdown up
     */
    public PluginSockets(Path draSocket, List<BindableService> draServices, Runnable beforeDraStop, Path registrationSocket,
                         BindableService registrationService, EventLoopGroup group, Executor handlers, Backoff backoff) {
        this.group = group;
        this.handlers = handlers;
        this.backoff = backoff;
        this.dra = new Served("DRA service", draSocket, draServices, true, beforeDraStop);
        this.registration = new Served("registration", registrationSocket, List.of(registrationService), false, () -> {});
    }

    /** Starts what should run and does not, as far as backoff allows; true when a server was (re)started. */
    public boolean ensure(long now) {
        boolean changed = false;
        if (dra.server != null && !dra.intact()) {
            log.info("DRA: socket {} was removed; serving on it again", dra.socket);
            dra.stop();
            registration.stop();
        }
        if (registration.server != null && !registration.intact()) {
            log.info("DRA: registration socket {} was removed; creating it again for the kubelet's plugin watcher", registration.socket);
            registration.stop();
        }
        if (dra.server == null && now - dra.nextStart >= 0) {
            changed |= start(dra, now);
            if (dra.server != null) registration.stop();
        }
        if (dra.server != null && registration.server == null && now - registration.nextStart >= 0) changed |= start(registration, now);
        return changed;
    }

    /** When {@link #ensure} should run again to retry a failed start; empty when all serve. */
    public Optional<Long> nextAttempt() {
        if (dra.server == null) return Optional.of(dra.nextStart);
        if (registration.server == null) return Optional.of(registration.nextStart);
        return Optional.empty();
    }

    public boolean serving() {
        return dra.server != null && registration.server != null;
    }

    private boolean start(Served s, long now) {
        try {
            Path dir = s.socket.getParent();
            if (s.createDir) {
                Files.createDirectories(dir);
            } else if (!Files.isDirectory(dir)) {
                throw new IOException(dir + " does not exist (is the kubelet running? mount the kubelet's plugins_registry directory)");
            }
            s.server = SocketServer.bind(s.socket, s.services, group, handlers);
            if (s.problems.current() != null) {
                s.problems.resolved("DRA: " + s.what + " serves on " + s.socket + " again after " + s.failures + " failed attempt(s)");
            } else {
                log.info("DRA: {} serves on {}", s.what, s.socket);
            }
            s.failures = 0;
            return true;
        } catch (IOException | RuntimeException e) {
            s.server = null;
            s.failures++;
            Duration delay = backoff.delayAfter(s.failures);
            s.nextStart = now + delay.toNanos();
            String problem = e instanceof FileSystemException f && f.getReason() != null ? f.getFile() + ": " + f.getReason() : e.getMessage();
            s.problems.problem(String.valueOf(problem), "DRA: cannot serve the " + s.what + " on " + s.socket + ": " + problem
                    + "; retrying (backoff up to " + backoff.max().toMillis() + " ms)");
            return false;
        }
    }

    /** Stops both servers and removes the sockets they created. */
    @Override
    public void close() {
        registration.stop();
        dra.stop();
    }

    private static final class Served {
        final String what;
        final Path socket;
        final List<BindableService> services;
        final boolean createDir;
        final Runnable beforeStop;
        SocketServer server;
        int failures;
        final ProblemLog problems = new ProblemLog(log);
        long nextStart = System.nanoTime();

        Served(String what, Path socket, List<BindableService> services, boolean createDir, Runnable beforeStop) {
            this.beforeStop = beforeStop;
            this.what = what;
            this.socket = socket;
            this.services = List.copyOf(services);
            this.createDir = createDir;
        }

        boolean intact() {
            return server != null && server.intact();
        }

        void stop() {
            if (server == null) return;
            beforeStop.run();
            server.stop();
            server = null;
            nextStart = System.nanoTime();
        }
    }
}
