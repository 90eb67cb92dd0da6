package io.vfiodp.dra.kubelet;

import io.grpc.BindableService;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.vfiodp.kubelet.SocketServer;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The driver's two gRPC servers, started and stopped as the driver's step asks: which to run and
 * when is decided there; here is how. The DRA service's directory is created (it is the driver's
 * own); the registration socket's is not, since it is the kubelet's plugin watcher's and its absence
 * says the kubelet is not there. Confined to the driver's thread.
 */
public final class DriverSockets implements AutoCloseable {

    private final Map<DriverSocket, Path> paths;
    private final Map<DriverSocket, List<BindableService>> services;
    private final Runnable beforeServiceStop;
    private final EventLoopGroup group;
    private final Executor handlers;
    private final Map<Long, Running> running = new HashMap<>();

    private record Running(DriverSocket socket, SocketServer server) {}

    /**
     * @param beforeServiceStop ends the DRA server's open streams (health), which would otherwise hold its
     *                          shutdown up
     */
    public DriverSockets(Path serviceSocket, List<BindableService> serviceServices, Runnable beforeServiceStop, Path registrationSocket,
                         BindableService registration, EventLoopGroup group, Executor handlers) {
        this.paths = Map.of(DriverSocket.SERVICE, serviceSocket, DriverSocket.REGISTRATION, registrationSocket);
        this.services = Map.of(DriverSocket.SERVICE, List.copyOf(serviceServices), DriverSocket.REGISTRATION, List.of(registration));
        this.beforeServiceStop = beforeServiceStop;
        this.group = group;
        this.handlers = handlers;
    }

    public Path path(DriverSocket socket) {
        return paths.get(socket);
    }

    /** Serves {@code socket} as server {@code generation}; empty when it serves, else the problem in words. */
    public Optional<String> start(DriverSocket socket, long generation) {
        Path path = paths.get(socket);
        try {
            Path dir = path.getParent();
            if (socket == DriverSocket.SERVICE) {
                Files.createDirectories(dir);
            } else if (!Files.isDirectory(dir)) {
                throw new IOException(dir + " does not exist (is the kubelet running? mount the kubelet's plugins_registry directory)");
            }
            running.put(generation, new Running(socket, SocketServer.bind(path, services.get(socket), group, handlers)));
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of(String.valueOf(e instanceof FileSystemException f && f.getReason() != null ? f.getFile() + ": " + f.getReason()
                    : e.getMessage()));
        }
    }

    /** Stops server {@code generation}, if it runs, removing its socket if it is still ours. */
    public void stop(long generation) {
        Running r = running.remove(generation);
        if (r == null) return;
        if (r.socket() == DriverSocket.SERVICE) beforeServiceStop.run();
        r.server().stop();
    }

    /** The running servers whose socket file was removed or replaced. */
    public Set<DriverSocket> gone() {
        Set<DriverSocket> gone = EnumSet.noneOf(DriverSocket.class);
        for (Running r : running.values()) {
            if (!r.server().intact()) gone.add(r.socket());
        }
        return gone;
    }

    /** Stops what still runs, the registration first: the kubelet must not find a registration whose service is gone. */
    @Override
    public void close() {
        List<Long> generations = new ArrayList<>(running.keySet());
        generations.sort((a, b) -> Boolean.compare(running.get(a).socket() == DriverSocket.SERVICE, running.get(b).socket() == DriverSocket.SERVICE));
        generations.forEach(this::stop);
    }
}
