package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vfiodp.holders.PodDetails;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.Ticker;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The pods of this node, as the API has them (list and watch with the field selector
 * {@code spec.nodeName=<node>}), turned into what attribution needs: the VMI each runs and the VM
 * that owns it. The watch runs on a thread of its own ({@link SupervisedInformer}: a failure is
 * said once and retried after a backoff); each change rebuilds an immutable {@link PodDetails},
 * then tells {@code changed}. While the pods cannot be listed, the details say why.
 *
 * <p>Pods are read as generic resources, not fabric8's typed {@code Pod}: attribution needs only
 * their metadata and node name, and the typed model would have Jackson introspect the whole pod
 * graph (containers, volumes, their builders), classes and heap that serve would keep for nothing.
 */
public final class PodsOnNode implements AutoCloseable {

    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    static final String RBAC_HINT = "list and watch on pods";

    private final String node;
    private final Worker worker;
    private final SupervisedInformer<GenericKubernetesResource> informer;
    private final VmiOwners owners;
    private volatile Runnable changed = () -> { };
    private volatile PodDetails details;

    private PodsOnNode(KubernetesClient client, String node) {
        this.node = node;
        this.worker = Worker.start("vfio-dp-pod-watch");
        this.owners = new VmiOwners(client, Ticker.SYSTEM);
        this.details = new PodDetails.Unknown("the pods of node " + node + " are not listed yet");
        this.informer = new SupervisedInformer<>("the pods of node " + node, RBAC_HINT, "the pods API is not served",
                () -> "device holders are shown without their VMIs meanwhile",
                () -> client.genericKubernetesResources(CoreResources.PODS).inAnyNamespace().withField("spec.nodeName", node).runnableInformer(0), this::rebuild, worker, BACKOFF);
    }

    /** The pods of {@code node}, not watched yet: {@link #details()} says so until {@link #start}. */
    public static PodsOnNode create(KubernetesClient client, String node) {
        return new PodsOnNode(client, node);
    }

    /** Starts watching; {@code changed} runs on the watch's thread after each change and must return at once. */
    public void start(Runnable changed) {
        this.changed = changed;
        informer.start();
    }

    /** The pods as last listed or watched, or why they are not known. */
    public PodDetails details() {
        return details;
    }

    private void rebuild() {
        details = informer.synced() ? LauncherPods.details(informer.items(), node, owners)
                : new PodDetails.Unknown("cannot list the pods of node " + node + ": " + informer.problem().orElse("not listed yet"));
        changed.run();
    }

    /**
     * The pods of this node read once, by a command ({@code inventory}): through a client {@code clients}
     * makes (and closed after) when an API is configured ({@code api}, as {@link KubeApiDetection} finds it)
     * and the node is named; else why not.
     */
    public static PodDetails readOnce(Optional<String> api, Optional<String> node, Supplier<KubernetesClient> clients) {
        if (node.isEmpty()) return new PodDetails.Unknown("no node name (--node-name, or NODE_NAME from the downward API's spec.nodeName)");
        if (api.isEmpty()) return new PodDetails.Unknown("no Kubernetes API is configured (not in a pod, no kubeconfig)");
        try (KubernetesClient client = clients.get()) {
            return listOnce(client, node.get());
        } catch (RuntimeException e) {
            return new PodDetails.Unknown("cannot set up a Kubernetes client for " + api.get() + ": " + e.getMessage());
        }
    }

    /** The pods of {@code node} listed once, for a command that asks once ({@code inventory}). */
    public static PodDetails listOnce(KubernetesClient client, String node) {
        try {
            return LauncherPods.details(client.genericKubernetesResources(CoreResources.PODS).inAnyNamespace().withField("spec.nodeName", node).list().getItems(), node,
                    new VmiOwners(client, Ticker.SYSTEM));
        } catch (KubernetesClientException e) {
            return new PodDetails.Unknown("cannot list the pods of node " + node + ": "
                    + SupervisedInformer.describe(e, "list on pods", "the pods API is not served"));
        }
    }

    @Override
    public void close() {
        try {
            CompletableFuture.runAsync(informer::close, worker).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        }
        worker.close();
    }
}
