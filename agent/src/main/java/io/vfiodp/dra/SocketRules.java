package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverEvent.ServerFailed;
import io.vfiodp.dra.DriverEvent.ServerStarted;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.kubelet.ServerState;
import io.vfiodp.kubelet.ServerState.Down;
import io.vfiodp.kubelet.ServerState.Starting;
import io.vfiodp.kubelet.ServerState.Up;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The sockets' part of a step, on a working copy. Whichever server is down is started when due:
 * the kubelet's plugin watcher registers a plugin when its socket appears, so a socket deleted
 * under us (the directory wiped and re-created, a kubelet reinstall) is served again, and the
 * kubelet registers us again. The DRA service comes first (the kubelet dials it as soon as it
 * registers us), and whenever it is (re)started the registration socket is too, so that the
 * kubelet connects afresh. Failed starts are retried on the backoff for ever, a problem logged
 * when it is new, not on every attempt.
 */
final class SocketRules {

    private final Map<DriverSocket, Path> paths;
    private final Backoff backoff;
    private final long now;
    private final List<DriverAction> actions;
    private SocketStates sockets;

    SocketRules(SocketStates sockets, Map<DriverSocket, Path> paths, Backoff backoff, long now, List<DriverAction> actions) {
        this.sockets = sockets;
        this.paths = paths;
        this.backoff = backoff;
        this.now = now;
        this.actions = actions;
    }

    SocketStates result() {
        return sockets;
    }

    void swept(Set<DriverSocket> gone) {
        if (sockets.service() instanceof Up && gone.contains(DriverSocket.SERVICE)) {
            actions.add(Log.info("DRA: socket " + paths.get(DriverSocket.SERVICE) + " was removed; serving on it again"));
            stop(DriverSocket.SERVICE);
            stop(DriverSocket.REGISTRATION);
        }
        if (sockets.registration() instanceof Up && gone.contains(DriverSocket.REGISTRATION)) {
            actions.add(Log.info("DRA: registration socket " + paths.get(DriverSocket.REGISTRATION)
                    + " was removed; creating it again for the kubelet's plugin watcher"));
            stop(DriverSocket.REGISTRATION);
        }
    }

    void started(ServerStarted e) {
        if (!(sockets.get(e.socket()) instanceof Starting s) || s.generation() != e.generation()) {
            // Not the server this socket waits for: nothing may keep it running.
            actions.add(new StopServer(e.socket(), e.generation()));
            return;
        }
        String what = "DRA: " + e.socket().what() + " serves on " + paths.get(e.socket());
        actions.add(Log.info(s.problem() != null ? what + " again after " + s.failures() + " failed attempt(s)" : what));
        sockets = sockets.with(e.socket(), s.started());
        // a new DRA service gets a new registration, so that the kubelet dials it afresh
        if (e.socket() == DriverSocket.SERVICE) stop(DriverSocket.REGISTRATION);
    }

    void startFailed(ServerFailed e) {
        if (!(sockets.get(e.socket()) instanceof Starting s) || s.generation() != e.generation()) return;
        sockets = sockets.with(e.socket(), s.failed(e.problem(), backoff, now));
        if (s.isNew(e.problem())) {
            actions.add(Log.warn("DRA: cannot serve the " + e.socket().what() + " on " + paths.get(e.socket()) + ": " + e.problem()
                    + "; retrying (backoff up to " + backoff.max().toMillis() + " ms)"));
        }
    }

    /** Starts the server that is due, the registration only beside a running DRA service; the time the next start is due, if one waits. */
    Optional<Long> converge() {
        if (sockets.service() instanceof Down d) return startWhenDue(DriverSocket.SERVICE, d);
        if (sockets.service() instanceof Up && sockets.registration() instanceof Down d) return startWhenDue(DriverSocket.REGISTRATION, d);
        return Optional.empty();
    }

    private Optional<Long> startWhenDue(DriverSocket socket, Down d) {
        if (!d.dueBy(now)) return Optional.of(d.nextStart());
        long generation = sockets.nextGeneration();
        actions.add(new StartServer(socket, generation));
        sockets = new SocketStates(sockets.service(), sockets.registration(), generation + 1)
                .with(socket, d.start(generation));
        return Optional.empty();
    }

    /** Stops both servers, the registration first: the kubelet must not find a registration whose service is gone. */
    void close() {
        stop(DriverSocket.REGISTRATION);
        stop(DriverSocket.SERVICE);
    }

    private void stop(DriverSocket socket) {
        switch (sockets.get(socket)) {
            case Up up -> actions.add(new StopServer(socket, up.generation()));
            case Starting s -> actions.add(new StopServer(socket, s.generation()));
            case Down d -> {
                return;
            }
        }
        sockets = sockets.with(socket, ServerState.dueAt(now));
    }
}
