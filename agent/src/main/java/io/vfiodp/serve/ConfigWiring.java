package io.vfiodp.serve;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vfiodp.kube.ConfigProblemReporter;
import io.vfiodp.kube.KubeApiDetection;
import io.vfiodp.kube.KubeClients;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.kube.kubevirt.KubeVirtPolicyFollower;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.policy.config.LocalConfig;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where every pass takes its configuration from, and where its problems go: with a Kubernetes API,
 * the KubeVirt CR followed live (it wins over {@code --config}, block by block, as KubeVirt's own
 * rule says) and Events on the node; without one, the {@code --config} file or the default policy,
 * problems logged and counted. With {@code --kubevirt off} and DRA, the API is there for the DRA
 * driver: the local configuration applies, and problems and health changes still become Events.
 *
 * @param follower present while the CR is followed; its changes must be {@link KubeVirtPolicyFollower#attach attached} to the rescans
 */
record ConfigWiring(ConfigSource configs, ScanPolicySource.ProblemSink problems, Optional<NodeEventRecorder> events,
                    Optional<KubernetesClient> client, Optional<KubeVirtPolicyFollower> follower) {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    /** Connects to the API when {@code config} says where it is; what it starts is registered with {@code closer}. */
    static ConfigWiring start(ServeConfig config, ServingMetrics metrics, Closer closer) {
        return start(config, metrics, closer, KubeClients::standard, config.usesApi());
    }

    /**
     * As {@link #start(ServeConfig, ServingMetrics, Closer)}, the client made by {@code clients} (a test's mock API server),
     * when {@code apiWanted} (the options ask for it, or the DRA driver must run for claims left in its checkpoint).
     */
    static ConfigWiring start(ServeConfig config, ServingMetrics metrics, Closer closer, Supplier<KubernetesClient> clients, boolean apiWanted) {
        Optional<KubernetesClient> client = Optional.empty();
        if (config.followKubeVirt() && config.kubeApi().isEmpty()) {
            log.info("--kubevirt auto: no Kubernetes API configured ({}); serving {} only", apiAbsence(), config.localDescription());
        }
        if (config.kubeApi().isPresent() && apiWanted) {
            try {
                client = Optional.of(closer.add(clients.get()));
            } catch (RuntimeException e) {
                // a broken kubeconfig must not keep the GPUs from being served (DRA, which cannot do without it, says so itself)
                log.warn("cannot set up a Kubernetes client ({}); serving {} only", e.getMessage(), config.localDescription());
            }
        }
        if (client.isEmpty()) {
            return new ConfigWiring(LocalConfig.of(config.config()), countedIn(new ConfigProblemReporter(Optional.empty()), metrics),
                    Optional.empty(), Optional.empty(), Optional.empty());
        }
        if (!config.followKubeVirt()) {
            KubernetesClient api = client.get();
            Optional<NodeEventRecorder> events = config.nodeName().map(n -> closer.add(new NodeEventRecorder(api, n)));
            events.ifPresent(NodeEventRecorder::start);
            return new ConfigWiring(LocalConfig.of(config.config()), countedIn(new ConfigProblemReporter(events), metrics), events, client,
                    Optional.empty());
        }
        KubeVirtPolicyFollower follower = closer.add(KubeVirtPolicyFollower.start(client.get(), config.nodeName(), config.config(),
                metrics::kubevirtCrReadable, ServeConfig.FIRST_CR_READING_WAIT));
        return new ConfigWiring(follower.configs(), countedIn(follower.problems(), metrics), follower.events(), client, Optional.of(follower));
    }

    /**
     * Why the node gets no Events (device health changes, configuration problems), naming the
     * options given: {@code apiWanted} whether the Kubernetes API was asked for, {@code clientUp}
     * whether a client to it was set up.
     */
    static String withoutEvents(ServeConfig config, boolean apiWanted, boolean clientUp) {
        String node = config.nodeName().map(n -> "--node-name " + n).orElse("no node name (--node-name or NODE_NAME)");
        if (clientUp) return node + ", so the Node to post on is unknown";
        if (!apiWanted) {
            return "with --kubevirt off and no --dra-resources serve does not use the Kubernetes API"
                    + config.nodeName().map(n -> " (" + node + " is given)").orElse("");
        }
        if (config.kubeApi().isEmpty()) return "no Kubernetes API configured (" + apiAbsence() + ")";
        return "the Kubernetes client for " + config.kubeApi().get() + " could not be set up (above)";
    }

    /** What the environment holds where no API is configured: the detection's view of this process. */
    private static String apiAbsence() {
        return KubeApiDetection.absence(System.getenv(), Path.of(System.getProperty("user.home")), KubeApiDetection.SERVICE_ACCOUNT);
    }

    /** Each pass's configuration problems: logged and posted by {@code reporter}, and counted in the metrics. */
    static ScanPolicySource.ProblemSink countedIn(ConfigProblemReporter reporter, ServingMetrics metrics) {
        return (origin, problems) -> {
            reporter.report(origin, problems);
            metrics.configEntryErrors(problems);
        };
    }
}
