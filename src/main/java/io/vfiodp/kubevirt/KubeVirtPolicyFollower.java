package io.vfiodp.kubevirt;

import io.vfiodp.plugin.Backoff;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.metrics.PluginMetrics;
import io.vfiodp.policy.config.PermittedConfigSource;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --kubevirt auto}: follows the KubeVirt CR and makes every change of its
 * configuration ask for one policy pass, and reports configuration problems with Node Events.
 *
 * <p>Use: {@link #start}, build the plugin on {@link #configs()} and {@link #problems()}, then
 * {@link #attach} the plugin's rescan trigger. Start waits briefly for the first reading of the
 * CR (or the first failure to read it), so that the plugin does not register the local
 * configuration's resources only to replace them a moment later.
 */
public final class KubeVirtPolicyFollower implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeVirtPolicyFollower.class);

    private final CrOrLocalConfigSource configs;
    private final ConfigProblemReporter problems;
    private final Optional<NodeEventRecorder> events;
    private final KubeVirtConfigWatcher watcher;
    private volatile Runnable rescan = () -> { };
    private volatile KubeVirtConfig latest = new KubeVirtConfig.NoCr();

    private KubeVirtPolicyFollower(KubernetesClient client, Optional<String> nodeName, PermittedConfigSource local,
            String localDescription, PluginMetrics metrics, Backoff backoff) {
        this.configs = new CrOrLocalConfigSource(local, localDescription);
        this.events = nodeName.filter(n -> !n.isBlank()).map(n -> new NodeEventRecorder(client, n));
        this.problems = new ConfigProblemReporter(events, metrics);
        this.watcher = new KubeVirtConfigWatcher(client, nodeName, this::changed, metrics::kubevirtCrReadable, backoff);
    }

    /**
     * Starts watching and waits up to {@code firstReadingWait} for the first reading of the CR.
     *
     * @param local            the {@code --config} file or the default policy, used while the CR has no permittedHostDevices
     * @param localDescription how logs name {@code local}
     */
    public static KubeVirtPolicyFollower start(KubernetesClient client, Optional<String> nodeName, PermittedConfigSource local,
            String localDescription, PluginMetrics metrics, Duration firstReadingWait) {
        return start(client, nodeName, local, localDescription, metrics, firstReadingWait, KubeVirtConfigWatcher.RETRY);
    }

    static KubeVirtPolicyFollower start(KubernetesClient client, Optional<String> nodeName, PermittedConfigSource local,
            String localDescription, PluginMetrics metrics, Duration firstReadingWait, Backoff backoff) {
        KubeVirtPolicyFollower f = new KubeVirtPolicyFollower(client, nodeName, local, localDescription, metrics, backoff);
        if (f.events.isEmpty()) {
            LOG.info("no node name (--node-name / NODE_NAME): configuration problems are logged and counted, not posted as Node events");
        }
        f.events.ifPresent(NodeEventRecorder::start);
        f.watcher.start();
        try {
            f.watcher.firstSettled().get(firstReadingWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("KubeVirt CR not read within {}: starting with {}; the CR takes over once it is read", firstReadingWait,
                    localDescription);
        } catch (ExecutionException e) {
            throw new IllegalStateException("KubeVirt CR watcher failed to start", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return f;
    }

    private void changed(KubeVirtConfig config) {
        latest = config;
        configs.update(config);
        rescan.run();
    }

    /** The recorder of Events on this node, when the node name is known; others (device health) post through it too. */
    public Optional<NodeEventRecorder> events() {
        return events;
    }

    /** The configuration each policy pass should use: the CR's, or the local one. */
    public PermittedConfigSource configs() {
        return configs;
    }

    /**
     * The CR's {@code mediatedDevicesConfiguration} resolved for this node, when the CR in force
     * lists types for it; empty when there is no CR or it requests none (then {@code --config} may).
     */
    public Optional<DesiredMdevTypes> mdevTypes() {
        return latest instanceof KubeVirtConfig.FromCr cr && !cr.mdevTypes().types().isEmpty()
                ? Optional.of(cr.mdevTypes()) : Optional.empty();
    }

    /** Where each policy pass's configuration problems go: log once, Node Event, metric. */
    public ConfigProblemReporter problems() {
        return problems;
    }

    /**
     * From now on each configuration change calls {@code rescan} (which must only enqueue), and
     * calls it once now for a change that came in while the plugin was starting.
     */
    public void attach(Runnable rescan) {
        this.rescan = rescan;
        rescan.run();
    }

    @Override
    public void close() {
        rescan = () -> { };
        watcher.close();
        events.ifPresent(NodeEventRecorder::close);
    }
}
