package io.vfiodp.plugin;

import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;

/**
 * Everything the reconcile step keeps about one served resource.
 *
 * @param socket           where its server listens
 * @param registeredBefore some kubelet accepted it once already (re-registrations are counted apart)
 */
record ResourceState(ResourceName name, Path socket, ServerState server, boolean registeredBefore) {

    /** A resource just added: start its server at once. */
    static ResourceState added(ResourceName name, Path socket, long now) {
        return new ResourceState(name, socket, new ServerState.Down(now, 0, null), false);
    }

    ResourceState with(ServerState next) {
        return new ResourceState(name, socket, next, registeredBefore);
    }

    /** The endpoint the kubelet dials: the socket's name inside the device-plugin directory. */
    String endpoint() {
        return socket.getFileName().toString();
    }
}
