package io.vfiodp.kube.kubevirt;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kube.CoreResources;
import io.vfiodp.kube.SupervisedInformer;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.Worker;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the KubeVirt CR (all namespaces) and this node's labels, and hands every change of the
 * resulting {@link KubeVirtConfig} to a listener.
 *
 * <p>The listener runs on this watcher's own thread, one call at a time, in order; it should
 * only enqueue (the reconcile loop applies). It is called first once the CR list has been read
 * (a {@link KubeVirtConfig.NoCr} when there is none), then only when the configuration really
 * changes: KubeVirt rewrites its CR's status often, and those writes are not changes for us.
 *
 * <p>When the CR cannot be read (API server down, RBAC forbidden) nothing is emitted: whatever
 * the listener had stays in force, the watch is retried with a capped backoff, and each change of
 * state is logged once. An API server that does not serve {@code kubevirts.kubevirt.io} at all
 * (KubeVirt not installed, HTTP 404) counts as "no CR", and is retried too; but not once a CR
 * was read: then a 404 keeps the CR's configuration in force, like any other failure.
 */
public final class KubeVirtConfigWatcher implements AutoCloseable {

    /** Retries of a failed watch: doubling from 1 s up to 30 s. */
    static final Backoff RETRY = new Backoff(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(30));

    private static final Logger LOG = LoggerFactory.getLogger(KubeVirtConfigWatcher.class);

    private final Optional<String> nodeName;
    private final Consumer<KubeVirtConfig> listener;
    private final Runnable labelsChanged;
    private final Consumer<Boolean> crReadable;
    private final Worker executor;
    private final SupervisedInformer<KubeVirt> kubevirts;
    private final Optional<SupervisedInformer<GenericKubernetesResource>> node;

    private final CompletableFuture<Void> firstSettled = new CompletableFuture<>();
    private volatile Map<String, String> nodeLabels = Map.of();
    private KubeVirtConfig last;
    private List<CrRef> warnedIgnored = List.of();
    private boolean warnedNodeMissing;
    private boolean warnedNoNodeName;

    /**
     * @param labelsChanged runs (on this watcher's thread) when this node's labels change, after any new configuration
     * @param crReadable    told, on this watcher's thread, after each attempt to list or watch the CRs
     *                      whether the configuration can follow them (a 404 before any CR counts as readable: no KubeVirt)
     */
    KubeVirtConfigWatcher(KubernetesClient client, Optional<String> nodeName, Consumer<KubeVirtConfig> listener, Runnable labelsChanged,
            Consumer<Boolean> crReadable, Backoff backoff) {
        Objects.requireNonNull(client, "client");
        this.crReadable = Objects.requireNonNull(crReadable, "crReadable");
        this.nodeName = nodeName.filter(n -> !n.isBlank());
        this.listener = Objects.requireNonNull(listener, "listener");
        this.labelsChanged = Objects.requireNonNull(labelsChanged, "labelsChanged");
        this.executor = Worker.start("kubevirt-config-watch");
        this.kubevirts = new SupervisedInformer<>("KubeVirt CRs (kubevirts.kubevirt.io, all namespaces)",
                "list and watch on kubevirts.kubevirt.io",
                "the kubevirts.kubevirt.io API is not served: is KubeVirt installed?",
                () -> last instanceof KubeVirtConfig.FromCr cr ? "keeping the configuration of KubeVirt CR " + cr.source() + " in force"
                        : "serving the local policy (--config file or defaults) meanwhile",
                () -> client.resources(KubeVirt.class).inAnyNamespace().runnableInformer(0),
                this::recompute, executor, backoff);
        this.node = this.nodeName.map(name -> new SupervisedInformer<>("node " + name,
                "list and watch on nodes",
                "the nodes API is not served",
                () -> nodeLabels.isEmpty() ? "nodeMediatedDeviceTypes entries are matched against no labels meanwhile"
                        : "nodeMediatedDeviceTypes entries are matched against the labels read last",
                () -> client.genericKubernetesResources(CoreResources.NODES).withName(name).runnableInformer(0),
                this::recompute, executor, backoff));
    }

    /** Starts watching; returns at once. */
    public void start() {
        if (nodeName.isEmpty()) {
            LOG.info("no node name given (--node-name / NODE_NAME): nodeMediatedDeviceTypes entries are matched against no labels");
        }
        kubevirts.start();
        node.ifPresent(SupervisedInformer::start);
    }

    /**
     * Completes once the first configuration was emitted or the first attempt to read the CR
     * failed: from then on, waiting longer at start-up gains nothing.
     */
    public CompletableFuture<Void> firstSettled() {
        return firstSettled;
    }

    private void recompute() {
        // A 404 once a CR was in force is an API server that does not serve the CRD yet (a restarted
        // replica), not KubeVirt being uninstalled: uninstalling deletes the CRs first, and the watch says so.
        boolean unreadable = !kubevirts.synced() && (!kubevirts.absent() || last instanceof KubeVirtConfig.FromCr);
        if (kubevirts.settled()) crReadable.accept(!unreadable);
        if (unreadable) {
            if (kubevirts.settled()) firstSettled.complete(null);
            return;
        }
        if (node.isPresent() && !node.get().settled()) return;
        Map<String, String> labelsBefore = nodeLabels;
        node.filter(SupervisedInformer::synced).ifPresent(n -> nodeLabels = labelsOf(n.items()));
        try {
            emit();
        } finally {
            if (!nodeLabels.equals(labelsBefore)) labelsChanged.run();
        }
    }

    /** This node's labels as last read (none without a node name, or before the node was read). */
    public Map<String, String> nodeLabels() {
        return nodeLabels;
    }

    private void emit() {
        ActiveKubeVirt.Selection selection = ActiveKubeVirt.select(kubevirts.items());
        warnAboutIgnored(selection);
        KubeVirtConfig config = selection.active()
                .<KubeVirtConfig>map(kv -> {
                    warnIfNodeUnknown(kv);
                    return KubeVirtCrConverter.convert(kv, nodeLabels);
                })
                .orElseGet(KubeVirtConfig.NoCr::new);
        if (config.equals(last)) return;
        last = config;
        LOG.info("{}", describe(config));
        try {
            listener.accept(config);
        } catch (RuntimeException e) {
            LOG.error("KubeVirt configuration listener failed on {}", config, e);
        }
        firstSettled.complete(null);
    }

    private Map<String, String> labelsOf(List<GenericKubernetesResource> nodes) {
        if (nodes.isEmpty()) {
            if (!warnedNodeMissing) {
                LOG.warn("node {} does not exist in the API: nodeMediatedDeviceTypes entries are matched against no labels", nodeName.orElseThrow());
                warnedNodeMissing = true;
            }
            return Map.of();
        }
        warnedNodeMissing = false;
        Map<String, String> labels = nodes.get(0).getMetadata().getLabels();
        return labels == null ? Map.of() : Map.copyOf(labels);
    }

    private void warnAboutIgnored(ActiveKubeVirt.Selection selection) {
        List<CrRef> ignored = selection.ignored().stream().map(ActiveKubeVirt::ref).toList();
        if (!ignored.isEmpty() && !ignored.equals(warnedIgnored)) {
            LOG.warn("{} KubeVirt CRs exist; using {}, the first created, as KubeVirt itself does, and ignoring {}",
                    ignored.size() + 1, ActiveKubeVirt.ref(selection.active().orElseThrow()), ignored);
        }
        warnedIgnored = ignored;
    }

    private void warnIfNodeUnknown(KubeVirt kv) {
        boolean perNode = kv.getSpec() != null && kv.getSpec().getConfiguration() != null
                && kv.getSpec().getConfiguration().getMediatedDevicesConfiguration() != null
                && kv.getSpec().getConfiguration().getMediatedDevicesConfiguration().getNodeMediatedDeviceTypes() != null;
        if (perNode && nodeName.isEmpty() && !warnedNoNodeName) {
            LOG.warn("KubeVirt CR {} has nodeMediatedDeviceTypes but this plugin does not know its node: set --node-name "
                    + "or NODE_NAME (downward API spec.nodeName)", ActiveKubeVirt.ref(kv));
            warnedNoNodeName = true;
        }
    }

    static String describe(KubeVirtConfig config) {
        return switch (config) {
            case KubeVirtConfig.NoCr n -> "no KubeVirt CR: serving the local policy (--config file or defaults)";
            case KubeVirtConfig.FromCr c -> c.permittedHostDevices()
                    .map(p -> "KubeVirt CR " + c.source() + ": permittedHostDevices with " + p.pciHostDevices().size()
                            + " pciHostDevices and " + p.mediatedDevices().size() + " mediatedDevices entries ("
                            + (p.pciHostDevices().stream().filter(PciHostDevice::externalResourceProvider).count()
                               + p.mediatedDevices().stream().filter(MediatedHostDevice::externalResourceProvider).count())
                            + " with externalResourceProvider: true)")
                    .orElse("KubeVirt CR " + c.source() + " has no permittedHostDevices: serving the local policy (--config file or defaults)")
                    + (c.mdevTypes().types().isEmpty() ? "; no mdev types requested for this node"
                            : "; mdev types for this node: " + c.mdevTypes().types() + " from " + c.mdevTypes().origin())
                    + (c.mdevTypes().creationEnabled() ? "" : " (mdev creation disabled)");
        };
    }

    @Override
    public void close() {
        try {
            CompletableFuture.runAsync(() -> {
                kubevirts.close();
                node.ifPresent(SupervisedInformer::close);
            }, executor).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            LOG.debug("closing informers", e);
        }
        executor.close();
    }
}
