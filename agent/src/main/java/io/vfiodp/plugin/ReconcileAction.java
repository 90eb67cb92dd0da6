package io.vfiodp.plugin;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;
import org.slf4j.event.Level;

/** What the reconcile step asks its thread to do, in order. */
sealed interface ReconcileAction {

    /** Bind {@code socket} and serve {@code view}; answer with a ServerStarted or ServerFailed event for {@code generation}. */
    record StartServer(ResourceName name, Path socket, ResourceView view, long generation) implements ReconcileAction {}

    /**
     * Stop server {@code generation}, sending a last empty device list first when {@code finalEmpty}:
     * only for a resource really withdrawn, since the kubelet forgets its devices on that list.
     */
    record StopServer(ResourceName name, long generation, boolean finalEmpty) implements ReconcileAction {}

    /** Hand server {@code generation} a new view (ListAndWatch streams get it when the kubelet-visible list changed). */
    record Publish(ResourceName name, long generation, ResourceView view) implements ReconcileAction {}

    /** Call the kubelet's Register for {@code endpoint}, meant for the kubelet whose socket file is {@code kubelet}. */
    record Register(ResourceName name, String endpoint, long epoch, long generation, FileIdentity kubelet) implements ReconcileAction {}

    /** Tell the listener the kubelet accepted a registration. */
    record NotifyRegistered(ResourceName name, boolean again) implements ReconcileAction {}

    /** Tell the listener a served device changed health. */
    record NotifyHealthChanged(ResourceName name, String deviceId, Health from, Health to) implements ReconcileAction {}

    /** One line in the plugin's log. */
    record Log(Level level, String message) implements ReconcileAction {

        static Log info(String message) {
            return new Log(Level.INFO, message);
        }

        static Log warn(String message) {
            return new Log(Level.WARN, message);
        }
    }
}
