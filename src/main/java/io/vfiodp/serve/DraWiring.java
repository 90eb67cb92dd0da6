package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.dra.DraDriver;
import io.vfiodp.dra.DraListener;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.triggers.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --dra-resources}: the DRA driver, with its health changes as metrics and Node
 * Events. It needs this node's name (its pool) and a Kubernetes API (its ResourceSlices, the
 * claims the kubelet names); without either, serve does not start, since the resources routed to
 * DRA would be offered nowhere.
 *
 * <p>With no resource routed to DRA, the driver still runs while its checkpoint holds prepared
 * claims: the kubelet unprepares a claim through the driver that prepared it, and the devices
 * those claims hold stay out of the device plugins until then. It offers nothing, and its empty
 * pool removes the slices it published before.
 */
final class DraWiring {

    /**
     * @param driver the running driver, if any
     * @param held   the devices prepared claims hold: the driver's, or its checkpoint's when it cannot run
     */
    record Started(Optional<DraDriver> driver, Supplier<Set<String>> held) {
        static final Started NONE = new Started(Optional.empty(), Set::of);
    }

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private DraWiring() {}

    /**
     * The running driver when some resource goes through DRA, else empty; it is registered with
     * {@code closer} and watches its directories with {@code watcher}.
     */
    static Started start(ServeConfig config, SortedMap<String, PreparedClaim> leftOver, Optional<KubernetesClient> client,
                         Optional<NodeEventRecorder> events, ServingMetrics metrics, DirectoryWatcher watcher, Closer closer) throws IOException {
        ServeConfig.Dra dra = config.dra();
        Path pluginDir = pluginDir(config);
        if (!dra.enabled()) return leftOver(config, leftOver, client, events, metrics, watcher, closer, pluginDir);
        List<String> missing = missing(config, client);
        if (!missing.isEmpty()) {
            throw new IOException("--dra-resources " + dra.routing() + " needs " + String.join(" and ", missing)
                    + ": the DRA driver publishes this node's devices as ResourceSlices and reads the ResourceClaims the kubelet prepares");
        }
        DraDriver driver = driver(config, client.get(), events, metrics, watcher, closer, pluginDir);
        log.info("DRA: driver {} serves {} as pool {}: registration socket in {}, plugin dir {}, CDI specs in {}", dra.driverName(),
                dra.routing().all() ? "every resource" : dra.routing(), config.nodeName().get(), dra.registryDir(), pluginDir, dra.cdiDir());
        return new Started(Optional.of(driver), driver::heldDevices);
    }

    private static List<String> missing(ServeConfig config, Optional<KubernetesClient> client) {
        List<String> missing = new ArrayList<>();
        if (config.nodeName().isEmpty()) missing.add("this node's name (--node-name, or NODE_NAME from the downward API's spec.nodeName)");
        if (client.isEmpty()) {
            missing.add("a Kubernetes API (" + config.kubeApi().map(a -> "the client for " + a + " could not be set up")
                    .orElse("run in a pod, or name a kubeconfig in KUBECONFIG") + ")");
        }
        return missing;
    }

    private static Path pluginDir(ServeConfig config) {
        return config.dra().pluginDir().orElse(DraSettings.PLUGINS_DIR.resolve(config.dra().driverName()));
    }

    /**
     * With no resource routed to DRA, the claims the driver's checkpoint holds: the driver must run
     * for them (none when something is routed to DRA, when the driver runs anyway).
     */
    static SortedMap<String, PreparedClaim> leftOverClaims(ServeConfig config) {
        if (config.dra().enabled()) return new TreeMap<>();
        Checkpoint checkpoint = new Checkpoint(pluginDir(config), config.dra().driverName());
        try {
            return checkpoint.load();
        } catch (IOException e) {
            log.warn("DRA: {}; no resource is routed to DRA, so serve goes on without it", e.getMessage());
            return new TreeMap<>();
        }
    }

    /** With nothing routed to DRA: the driver while its checkpoint holds claims, to serve their unprepare. */
    private static Started leftOver(ServeConfig config, SortedMap<String, PreparedClaim> claims, Optional<KubernetesClient> client,
                                    Optional<NodeEventRecorder> events, ServingMetrics metrics, DirectoryWatcher watcher, Closer closer,
                                    Path pluginDir) throws IOException {
        if (claims.isEmpty()) return Started.NONE;
        Checkpoint checkpoint = new Checkpoint(pluginDir, config.dra().driverName());
        List<String> missing = missing(config, client);
        if (!missing.isEmpty()) {
            Set<String> held = new HashSet<>();
            claims.values().forEach(c -> c.devices().forEach(d -> held.add(d.deviceId())));
            log.warn("DRA: no resource is routed to DRA, but {} holds {} claim(s) prepared by driver {}; the driver that would serve the"
                    + " kubelet's unprepare calls for them needs {}: their devices {} stay out of the device plugins", checkpoint.file(),
                    claims.size(), config.dra().driverName(), String.join(" and ", missing), new TreeSet<>(held));
            return new Started(Optional.empty(), () -> held);
        }
        DraDriver driver = driver(config, client.get(), events, metrics, watcher, closer, pluginDir);
        log.info("DRA: no resource is routed to DRA, but {} holds {} claim(s) prepared by driver {}: the driver serves the kubelet's"
                + " unprepare calls for them, offers nothing, and their devices stay out of the device plugins until then",
                checkpoint.file(), claims.size(), config.dra().driverName());
        return new Started(Optional.of(driver), driver::heldDevices);
    }

    private static DraDriver driver(ServeConfig config, KubernetesClient client, Optional<NodeEventRecorder> events, ServingMetrics metrics,
                                    DirectoryWatcher watcher, Closer closer, Path pluginDir) throws IOException {
        ServeConfig.Dra dra = config.dra();
        DraSettings settings;
        try {
            settings = DraSettings.defaults(dra.driverName(), config.nodeName().get()).withDirs(dra.registryDir(), pluginDir, dra.cdiDir());
        } catch (IllegalArgumentException e) {
            throw new IOException("--dra-resources " + dra.routing() + ": " + e.getMessage(), e);
        }
        DraListener listener = metrics.draListener(dra.driverName());
        if (events.isPresent()) listener = listener.andThen(HealthEvents.onNode(events.get()));
        return closer.add(DraDriver.start(settings, client, Clock.systemUTC(), listener, watcher));
    }
}
