package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.dra.DraDriver;
import io.vfiodp.dra.DraListener;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.kube.DeviceClassEvents;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.triggers.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --dra-resources}: the DRA driver, with its health changes as metrics and Node
 * Events. It needs this node's name (its pool) and a Kubernetes API (its ResourceSlices, the
 * claims the kubelet names); without either, serve does not start, since the resources routed to
 * DRA would be offered nowhere.
 */
final class DraWiring {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private DraWiring() {}

    /**
     * The running driver when some resource goes through DRA, else empty; it is registered with
     * {@code closer} and watches its directories with {@code watcher}.
     */
    static Optional<DraDriver> start(ServeConfig config, Optional<KubernetesClient> client, Optional<NodeEventRecorder> events,
                                     ServingMetrics metrics, DirectoryWatcher watcher, Closer closer) throws IOException {
        ServeConfig.Dra dra = config.dra();
        if (!dra.enabled()) return Optional.empty();
        List<String> missing = new ArrayList<>();
        if (config.nodeName().isEmpty()) missing.add("this node's name (--node-name, or NODE_NAME from the downward API's spec.nodeName)");
        if (client.isEmpty()) {
            missing.add("a Kubernetes API (" + config.kubeApi().map(a -> "the client for " + a + " could not be set up")
                    .orElse("run in a pod, or name a kubeconfig in KUBECONFIG") + ")");
        }
        if (!missing.isEmpty()) {
            throw new IOException("--dra-resources " + dra.routing() + " needs " + String.join(" and ", missing)
                    + ": the DRA driver publishes this node's devices as ResourceSlices and reads the ResourceClaims the kubelet prepares");
        }
        Path pluginDir = dra.pluginDir().orElse(DraSettings.PLUGINS_DIR.resolve(dra.driverName()));
        DraSettings settings;
        try {
            settings = DraSettings.defaults(dra.driverName(), config.nodeName().get()).withDirs(dra.registryDir(), pluginDir, dra.cdiDir());
        } catch (IllegalArgumentException e) {
            throw new IOException("--dra-resources " + dra.routing() + ": " + e.getMessage(), e);
        }
        DraListener listener = metrics.draListener(dra.driverName());
        if (events.isPresent()) {
            listener = listener.andThen(HealthEvents.onNode(events.get())).andThen(DeviceClassEvents.onNode(events.get()));
        }
        DraDriver driver = closer.add(DraDriver.start(settings, client.get(), Clock.systemUTC(), listener, watcher));
        log.info("DRA: driver {} serves {} as pool {}: registration socket in {}, plugin dir {}, CDI specs in {}", dra.driverName(),
                dra.routing().all() ? "every resource" : dra.routing(), config.nodeName().get(), dra.registryDir(), pluginDir, dra.cdiDir());
        return Optional.of(driver);
    }
}
