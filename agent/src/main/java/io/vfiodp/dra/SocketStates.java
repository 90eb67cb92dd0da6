package io.vfiodp.dra;

import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.kubelet.ServerState;
import java.util.Objects;

/**
 * Both servers as the step sees them.
 *
 * @param nextGeneration the generation the next started server gets
 */
record SocketStates(ServerState service, ServerState registration, long nextGeneration) {

    SocketStates {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(registration, "registration");
    }

    /** Neither serves; both are started at {@code now}. */
    static SocketStates startingAt(long now) {
        return new SocketStates(ServerState.dueAt(now), ServerState.dueAt(now), 1);
    }

    ServerState get(DriverSocket socket) {
        return socket == DriverSocket.SERVICE ? service : registration;
    }

    SocketStates with(DriverSocket socket, ServerState state) {
        return socket == DriverSocket.SERVICE ? new SocketStates(state, registration, nextGeneration)
                : new SocketStates(service, state, nextGeneration);
    }

    /** Both sockets are served. */
    boolean serving() {
        return service instanceof ServerState.Up && registration instanceof ServerState.Up;
    }
}
