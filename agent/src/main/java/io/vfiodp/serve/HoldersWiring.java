package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vfiodp.dra.DraListener;
import io.vfiodp.holders.HealthNotices;
import io.vfiodp.holders.HolderTracker;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.OfferedDevice;
import io.vfiodp.holders.PodDetails;
import io.vfiodp.kube.HolderEvents;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.kube.PodsOnNode;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.metrics.HolderMetrics;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import io.vfiodp.triggers.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Who holds which device: the {@link HolderTracker} reading the kubelet's PodResources, the pods of
 * this node from the API when serve has one and knows its node's name (their VMIs and VMs), the view
 * in the metrics, and a held device's health changes logged and, with the API, posted as Events on
 * its pod and VMI. Allocate and prepare only ask for a read ({@link #pluginListener()},
 * {@link #draListener()}); every pass says what the node offers ({@link #offered}).
 */
final class HoldersWiring {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private final HolderTracker tracker;

    private HoldersWiring(HolderTracker tracker) {
        this.tracker = tracker;
    }

    /** Starts what {@code config} allows; everything started is registered with {@code closer}. */
    static HoldersWiring start(ServeConfig config, PodResourcesClient podResources, Optional<KubernetesClient> client,
                               Optional<NodeEventRecorder> events, PrometheusRegistry registry, Closer closer) {
        Optional<PodsOnNode> pods = client.flatMap(c -> config.nodeName().map(node -> closer.add(PodsOnNode.create(c, node))));
        String unknown = pods.isPresent() ? "" : noPods(config, client);
        if (pods.isEmpty()) log.info("device holders: pods and containers from the kubelet's PodResources, without their VMIs: {}", unknown);
        Supplier<PodDetails> details = pods.<Supplier<PodDetails>>map(p -> p::details).orElse(() -> new PodDetails.Unknown(unknown));
        HolderMetrics metrics = new HolderMetrics(registry);
        // on the tracker's thread, as every view
        ProblemLog unread = new ProblemLog(log, Level.INFO);
        Consumer<HolderView> published = view -> {
            metrics.holders(view);
            view.unknownHolders().ifPresentOrElse(why -> unread.problem(why, "device holders unknown: " + why
                    + "; inventory and vfio_dp_device_holder_info show none free meanwhile (vfio_dp_device_holders_known 0)"),
                    () -> unread.resolved("device holders: the kubelet's PodResources answers"));
        };
        Consumer<List<HealthNotices.Notice>> notices = HoldersWiring::logged;
        if (events.isPresent() && pods.isPresent()) {
            HolderEvents posted = new HolderEvents(events.get(), details);
            notices = notices.andThen(posted::tell);
        }
        HolderTracker tracker = closer.add(HolderTracker.start(podResources::read, details, config.dra().driverName(), published, notices));
        pods.ifPresent(p -> p.start(tracker::refreshSoon));
        return new HoldersWiring(tracker);
    }

    private static String noPods(ServeConfig config, Optional<KubernetesClient> client) {
        if (client.isEmpty()) {
            return config.kubeApi().isEmpty() ? "no Kubernetes API is configured"
                    : "serve does not use the Kubernetes API (--kubevirt off, and no resource routed to DRA)";
        }
        return "no node name (--node-name, or NODE_NAME from the downward API's spec.nodeName)";
    }

    private static void logged(List<HealthNotices.Notice> notices) {
        for (HealthNotices.Notice n : notices) {
            String health = n.device().health() instanceof Health.Unhealthy(String reason) ? "is Unhealthy: " + reason : "is Healthy again";
            log.warn("device {} ({}), held by pod {} ({}){}, {}", n.device().id(), n.device().resource(), n.holder().podName(),
                    String.join(", ", n.containers()), n.holder().vmi().map(v -> ", VMI " + v.name()).orElse(""), health);
        }
    }

    /** What a pass's scan and policy want the node to offer, either side, before the switch cuts it: every device of the view. */
    void offered(TargetState state) {
        tracker.offered(OfferedDevice.of(state));
    }

    /** An Allocate was answered: the kubelet records what it gave right after. */
    PluginListener pluginListener() {
        return new PluginListener() {
            @Override
            public void allocated(ResourceName resource, int devices) {
                tracker.refreshSoon();
            }
        };
    }

    /** A prepare or unprepare was answered. */
    DraListener draListener() {
        return new DraListener() {
            @Override
            public void claimsAnswered() {
                tracker.refreshSoon();
            }
        };
    }

    HolderTracker tracker() {
        return tracker;
    }
}
