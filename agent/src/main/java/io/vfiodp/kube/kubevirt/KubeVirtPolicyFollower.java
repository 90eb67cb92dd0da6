package io.vfiodp.kube.kubevirt;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kube.ConfigProblemReporter;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.policy.config.LocalConfig;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve} with the Kubernetes API: follows the KubeVirt CR and this node's labels, makes
 * every change ask for one pass, and reports configuration problems with Node Events.
 *
 * <p>Use: {@link #start}, build the passes on {@link #configs()} and {@link #problems()}, then
 * {@link #attach} the rescan trigger. Start waits briefly for the first reading of the CR (or the
 * first failure to read it), so that the plugin does not register the local configuration's
 * resources only to replace them a moment later.
 */
public final class KubeVirtPolicyFollower implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeVirtPolicyFollower.class);

    private final CrOrLocalConfigSource configs;
    private final ConfigProblemReporter problems;
    private final Optional<NodeEventRecorder> events;
    private final KubeVirtConfigWatcher watcher;
    private volatile Runnable rescan = () -> { };

    private KubeVirtPolicyFollower(KubernetesClient client, Optional<String> nodeName, Optional<Path> configFile,
            Consumer<Boolean> crReadable, Backoff backoff) {
        this.events = nodeName.filter(n -> !n.isBlank()).map(n -> new NodeEventRecorder(client, n));
        this.problems = new ConfigProblemReporter(events);
        this.watcher = new KubeVirtConfigWatcher(client, nodeName, this::changed, () -> rescan.run(), crReadable, backoff);
        this.configs = new CrOrLocalConfigSource(new LocalConfig(configFile, watcher::nodeLabels));
    }

    /**
     * Starts watching and waits up to {@code firstReadingWait} for the first reading of the CR.
     *
     * @param configFile the {@code --config} file (or none: the default policy), for what the CR does not say;
     *                   its {@code nodeMediatedDeviceTypes} are matched against the labels this follower watches
     * @param crReadable told, after each attempt to list or watch the KubeVirt CRs, whether it got an answer the
     *                   configuration can follow (serve: the metrics)
     */
    public static KubeVirtPolicyFollower start(KubernetesClient client, Optional<String> nodeName, Optional<Path> configFile,
            Consumer<Boolean> crReadable, Duration firstReadingWait) {
        return start(client, nodeName, configFile, crReadable, firstReadingWait, KubeVirtConfigWatcher.RETRY);
    }

    static KubeVirtPolicyFollower start(KubernetesClient client, Optional<String> nodeName, Optional<Path> configFile,
            Consumer<Boolean> crReadable, Duration firstReadingWait, Backoff backoff) {
        KubeVirtPolicyFollower f = new KubeVirtPolicyFollower(client, nodeName, configFile, crReadable, backoff);
        if (f.events.isEmpty()) {
            LOG.info("no node name (--node-name / NODE_NAME): configuration problems are logged and counted, not posted as Node events");
        }
        f.events.ifPresent(NodeEventRecorder::start);
        f.watcher.start();
        try {
            f.watcher.firstSettled().get(firstReadingWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("KubeVirt CR not read within {}: starting with {}; the CR takes over once it is read", firstReadingWait,
                    LocalConfig.of(configFile).description());
        } catch (ExecutionException e) {
            throw new IllegalStateException("KubeVirt CR watcher failed to start", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return f;
    }

    private void changed(KubeVirtConfig config) {
        configs.update(config);
        rescan.run();
    }

    /** The recorder of Events on this node, when the node name is known; others (device health) post through it too. */
    public Optional<NodeEventRecorder> events() {
        return events;
    }

    /** The configuration each pass should use: block by block, the CR's or the local one. */
    public ConfigSource configs() {
        return configs;
    }

    /** Where each pass's configuration problems go: log once, Node Event. */
    public ConfigProblemReporter problems() {
        return problems;
    }

    /**
     * From now on each change of the CR or of this node's labels calls {@code rescan} (which must only
     * enqueue), and calls it once now for a change that came in while the plugin was starting.
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
