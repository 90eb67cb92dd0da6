package io.vfiodp.plugin;

import io.vfiodp.kubelet.ServerState;
import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Everything the reconcile step keeps about one served resource.
 *
 * @param socket           where its server listens
 * @param server           its server's lifecycle
 * @param served           the view its server was started with or last given ({@code null} before the first start)
 * @param registration     where its server stands with the kubelet: read only while it serves, as a server that
 *                         starts serving begins at {@link Registration#soon}
 * @param registeredBefore some kubelet accepted it once already (re-registrations are counted apart)
 */
record ResourceState(ResourceName name, Path socket, ServerState server, ResourceView served, Registration registration,
                     boolean registeredBefore) {

    ResourceState {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(registration, "registration");
    }

    /** A resource just added: start its server at once. */
    static ResourceState added(ResourceName name, Path socket, long now) {
        return new ResourceState(name, socket, ServerState.dueAt(now), null, Registration.soon(now), false);
    }

    ResourceState with(ServerState next) {
        return new ResourceState(name, socket, next, served, registration, registeredBefore);
    }

    ResourceState with(Registration next) {
        return new ResourceState(name, socket, server, served, next, registeredBefore);
    }

    /** Its server is asked to start, serving {@code view}. */
    ResourceState starting(ServerState.Starting next, ResourceView view) {
        return new ResourceState(name, socket, next, view, registration, registeredBefore);
    }

    /** Its server serves, and registers with the present kubelet from {@code now}. */
    ResourceState serving(ServerState.Up up, long now) {
        return new ResourceState(name, socket, up, served, Registration.soon(now), registeredBefore);
    }

    /** Its server is given {@code view}. */
    ResourceState publishing(ResourceView view) {
        return new ResourceState(name, socket, server, view, registration, registeredBefore);
    }

    /** The kubelet of {@code epoch} accepted it. */
    ResourceState registered(long epoch) {
        return new ResourceState(name, socket, server, served, new Registration.Registered(epoch), true);
    }

    /** The endpoint the kubelet dials: the socket's name inside the device-plugin directory. */
    String endpoint() {
        return socket.getFileName().toString();
    }
}
