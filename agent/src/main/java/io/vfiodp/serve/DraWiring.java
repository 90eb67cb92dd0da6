package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.dra.DraDriver;
import io.vfiodp.dra.DraListener;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.model.NumaForm;
import io.vfiodp.handover.HandoverClaims;
import io.vfiodp.host.scan.NumaTopologyReader;
import io.vfiodp.kube.DeviceClassEvents;
import io.vfiodp.kube.HealthEvents;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.triggers.DirectoryWatcher;
import io.vfiodp.triggers.Ticker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
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
 * <p>With no resource routed to DRA, the driver still runs where its directory is (it ran on this
 * node): the kubelet unprepares a claim through the driver that prepared it, the devices those
 * claims hold stay out of the device plugins until then, and its empty pool removes the slices it
 * published before.
 */
final class DraWiring {

    /**
     * @param driver the running driver, if any
     * @param held   the devices prepared claims hold: the driver's, or its checkpoint's when it cannot run
     */
    record Started(Optional<DraDriver> driver, Supplier<HandoverClaims> held) {
        static final Started NONE = new Started(Optional.empty(), () -> HandoverClaims.NONE);
    }

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private DraWiring() {}

    /**
     * The running driver when some resource goes through DRA, else empty; it is registered with
     * {@code closer} and watches its directories with {@code watcher}.
     */
    static Started start(ServeConfig config, Optional<KubernetesClient> client, Optional<NodeEventRecorder> events, ServingMetrics metrics,
                         DraListener holders, DirectoryWatcher watcher, Closer closer, Supplier<PodResourcesReading> pods) throws IOException {
        ServeConfig.Dra dra = config.dra();
        Path pluginDir = pluginDir(config);
        if (!dra.enabled()) {
            return runsAnyway(config) ? leftOver(config, client, events, metrics, holders, watcher, closer, pluginDir, pods) : Started.NONE;
        }
        List<String> missing = missing(config, client);
        if (!missing.isEmpty()) {
            throw new IOException("--dra-resources " + dra.routing() + " needs " + String.join(" and ", missing)
                    + ": the DRA driver publishes this node's devices as ResourceSlices and reads the ResourceClaims the kubelet prepares");
        }
        DraDriver driver = driver(config, client.get(), events, metrics, holders, watcher, closer, pluginDir, pods);
        log.info("DRA: driver {} serves {} as pool {}: registration socket in {}, plugin dir {}, CDI specs in {}, numaNode {}", dra.driverName(),
                dra.routing().all() ? "every resource" : dra.routing(), config.nodeName().get(), dra.registryDir(), pluginDir, dra.cdiDir(),
                dra.numaList() ? "as a list (--dra-numa-form list)" : "as a scalar");
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
     * With no resource routed to DRA, whether the driver runs anyway: its directory is there, so it
     * ran on this node, and its slices may still be published and its checkpoint hold claims.
     */
    static boolean runsAnyway(ServeConfig config) {
        return !config.dra().enabled() && Files.isDirectory(pluginDir(config));
    }

    /**
     * With nothing routed to DRA, on a node where the driver ran: it offers nothing, so its empty pool
     * removes the slices it published, and it serves the kubelet's unprepare calls for the claims its
     * checkpoint holds, whose devices stay out of the device plugins until then.
     */
    private static Started leftOver(ServeConfig config, Optional<KubernetesClient> client, Optional<NodeEventRecorder> events,
                                    ServingMetrics metrics, DraListener holders, DirectoryWatcher watcher, Closer closer, Path pluginDir,
                                    Supplier<PodResourcesReading> pods) throws IOException {
        String driverName = config.dra().driverName();
        Checkpoint checkpoint = new Checkpoint(pluginDir, driverName);
        Checkpoint.Reading reading = checkpoint.load(new ClaimFiles(driverName, pluginDir, config.dra().cdiDir()));
        List<String> missing = missing(config, client);
        if (!missing.isEmpty() && reading instanceof Checkpoint.Lost lost) {
            Set<String> known = held(lost.known());
            log.warn("DRA: no resource is routed to DRA, and {}. The driver that would serve the kubelet's unprepare calls needs {};"
                    + " the claims the kubelet still has prepared are not all known, so every pass asks its PodResources API which devices"
                    + " they hold: those stay out of the device plugins (all of them while it cannot be read), the rest are offered",
                    lost.reason(), String.join(" and ", missing));
            return new Started(Optional.empty(), () -> new HandoverClaims.Unknown(known, lost.reason()));
        }
        SortedMap<String, PreparedClaim> claims = reading instanceof Checkpoint.Loaded loaded ? loaded.claims() : ((Checkpoint.Lost) reading).known();
        if (!missing.isEmpty()) {
            if (claims.isEmpty()) {
                log.info("DRA: no resource is routed to DRA; driver {} (its directory {} is there) would remove the slices it published,"
                        + " but needs {}: the kubelet removes them a while after the driver is gone", driverName, pluginDir,
                        String.join(" and ", missing));
                return Started.NONE;
            }
            Set<String> held = held(claims);
            log.warn("DRA: no resource is routed to DRA, but {} holds {} claim(s) prepared by driver {}; the driver that would serve the"
                    + " kubelet's unprepare calls for them needs {}: their devices {} stay out of the device plugins", checkpoint.file(),
                    claims.size(), driverName, String.join(" and ", missing), new TreeSet<>(held));
            return new Started(Optional.empty(), () -> new HandoverClaims.Known(held));
        }
        DraDriver driver = driver(config, client.get(), events, metrics, holders, watcher, closer, pluginDir, pods);
        if (reading instanceof Checkpoint.Lost) {
            log.info("DRA: no resource is routed to DRA; driver {} runs on, offering nothing, to serve the kubelet's unprepare calls for"
                    + " the claims it still has prepared, which its lost checkpoint does not all name (above)", driverName);
        } else if (claims.isEmpty()) {
            log.info("DRA: no resource is routed to DRA; driver {} runs on (its directory {} is there), offering nothing: the slices it"
                    + " published go", driverName, pluginDir);
        } else {
            log.info("DRA: no resource is routed to DRA, but {} holds {} claim(s) prepared by driver {}: the driver serves the kubelet's"
                    + " unprepare calls for them, offers nothing, and their devices stay out of the device plugins until then",
                    checkpoint.file(), claims.size(), driverName);
        }
        return new Started(Optional.of(driver), driver::heldDevices);
    }

    private static Set<String> held(SortedMap<String, PreparedClaim> claims) {
        Set<String> held = new HashSet<>();
        claims.values().forEach(c -> c.devices().forEach(d -> held.add(d.deviceId())));
        return held;
    }

    /** @param holders told when the kubelet's prepare and unprepare calls are answered */
    private static DraDriver driver(ServeConfig config, KubernetesClient client, Optional<NodeEventRecorder> events, ServingMetrics metrics,
                                    DraListener holders, DirectoryWatcher watcher, Closer closer, Path pluginDir,
                                    Supplier<PodResourcesReading> pods) throws IOException {
        ServeConfig.Dra dra = config.dra();
        DraSettings settings;
        try {
            settings = DraSettings.defaults(dra.driverName(), config.nodeName().get()).withDirs(dra.registryDir(), pluginDir, dra.cdiDir())
                    .withNumaForm(dra.numaList() ? NumaForm.list(NumaTopologyReader.read(config.sysfsRoot())) : NumaForm.SCALAR);
        } catch (IllegalArgumentException e) {
            throw new IOException("--dra-resources " + dra.routing() + ": " + e.getMessage(), e);
        }
        DraListener listener = metrics.draListener(dra.driverName()).andThen(holders);
        if (events.isPresent()) {
            listener = listener.andThen(HealthEvents.onNode(events.get())).andThen(DeviceClassEvents.onNode(events.get()));
        }
        return closer.add(DraDriver.start(settings, client, Clock.systemUTC(), Ticker.SYSTEM, listener, watcher, pods));
    }
}
