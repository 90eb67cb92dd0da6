package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.Worker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Warning (and Normal) Events about this node ({@code kubectl describe node} shows them), and
 * about the pods and VMIs on it that hold its devices ({@link #warn(About, String, String)}). Callers never
 * wait: {@link #warn} drops the event when the bounded queue is full, and one thread of its own
 * talks to the API. The same reason and message are posted at most once per {@code repeatAfter}
 * (Events expire after an hour by default, so a problem that persists is posted again).
 */
public final class NodeEventRecorder implements AutoCloseable {

    static final String COMPONENT = "vfio-device-plugin";
    /** Node events live in {@code default}, where the kubelet puts its own. */
    static final String NAMESPACE = "default";
    private static final int MAX_MESSAGE = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(NodeEventRecorder.class);

    /**
     * The object an Event is about; the Event goes into its namespace.
     *
     * @param uid the object's UID, which {@code kubectl describe} matches
     */
    public record About(String apiVersion, String kind, String namespace, String name, String uid) {
        public About {
            Objects.requireNonNull(apiVersion, "apiVersion");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(uid, "uid");
        }

        public static About pod(String namespace, String name, String uid) {
            return new About("v1", "Pod", namespace, name, uid);
        }

        public static About vmi(String namespace, String name, String uid) {
            return new About("kubevirt.io/v1", "VirtualMachineInstance", namespace, name, uid);
        }

        /** A Node: its events live in {@value #NAMESPACE}; the kubelet uses the node's name as their UID, and kubectl matches both. */
        static About node(String name) {
            return new About("v1", "Node", NAMESPACE, name, name);
        }
    }

    private record Key(About about, String type, String reason, String message) {}

    private final KubernetesClient client;
    private final String nodeName;
    private final Clock clock;
    private final Duration repeatAfter;
    private final BlockingQueue<Key> queue;
    private final Worker sender;
    // touched only by the sender thread
    private final Map<Key, Instant> lastPosted = new HashMap<>();
    private final ProblemLog failures = new ProblemLog(LOG);
    private int sequence;
    private volatile boolean droppedLogged;

    public NodeEventRecorder(KubernetesClient client, String nodeName) {
        this(client, nodeName, Clock.systemUTC(), 64, Duration.ofMinutes(30));
    }

    public NodeEventRecorder(KubernetesClient client, String nodeName, Clock clock, int capacity, Duration repeatAfter) {
        this.client = Objects.requireNonNull(client, "client");
        if (nodeName == null || nodeName.isBlank()) throw new IllegalArgumentException("node events need a node name");
        this.nodeName = nodeName;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.repeatAfter = Objects.requireNonNull(repeatAfter, "repeatAfter");
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.sender = Worker.start("node-events");
    }

    public void start() {
        sender.execute(this::run);
    }

    /** Queues a Warning event on the node; never blocks. Returns false when it was dropped. */
    public boolean warn(String reason, String message) {
        return offer(About.node(nodeName), "Warning", reason, message);
    }

    /** Queues a Normal event on the node (a recovery); never blocks. Returns false when it was dropped. */
    public boolean normal(String reason, String message) {
        return offer(About.node(nodeName), "Normal", reason, message);
    }

    /** Queues a Warning event on {@code about} (a pod, a VMI on this node); never blocks. Returns false when it was dropped. */
    public boolean warn(About about, String reason, String message) {
        return offer(about, "Warning", reason, message);
    }

    /** Queues a Normal event on {@code about}; never blocks. Returns false when it was dropped. */
    public boolean normal(About about, String reason, String message) {
        return offer(about, "Normal", reason, message);
    }

    private boolean offer(About about, String type, String reason, String message) {
        boolean queued = queue.offer(new Key(Objects.requireNonNull(about, "about"), type, Objects.requireNonNull(reason, "reason"),
                truncate(Objects.requireNonNull(message, "message"))));
        if (!queued && !droppedLogged) {
            droppedLogged = true;
            LOG.warn("node event queue full ({} pending): dropping events until the API server catches up", queue.size());
        }
        return queued;
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Key key = queue.take();
                droppedLogged = false;
                Instant now = clock.instant();
                Instant previous = lastPosted.get(key);
                if (previous != null && previous.plus(repeatAfter).isAfter(now)) continue;
                if (post(key, now)) lastPosted.put(key, now);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean post(Key key, Instant now) {
        String ts = DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS));
        About about = key.about();
        Event event = new EventBuilder()
                .withNewMetadata()
                    // client-go's naming (involved object name + "." + hex nanoseconds), plus a sequence
                    // number: two events in one clock tick must not share a name
                    .withName(about.name() + "." + Long.toHexString(now.getEpochSecond() * 1_000_000_000L + now.getNano())
                            + Integer.toHexString(sequence++))
                    .withNamespace(about.namespace())
                .endMetadata()
                .withNewInvolvedObject().withApiVersion(about.apiVersion()).withKind(about.kind()).withName(about.name())
                    .withNamespace(about.kind().equals("Node") ? null : about.namespace()).withUid(about.uid()).endInvolvedObject()
                .withType(key.type())
                .withReason(key.reason())
                .withMessage(key.message())
                .withNewSource().withComponent(COMPONENT).withHost(nodeName).endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(nodeName)
                .withFirstTimestamp(ts)
                .withLastTimestamp(ts)
                .withCount(1)
                .build();
        try {
            client.v1().events().inNamespace(about.namespace()).resource(event).create();
            failures.forget();
            return true;
        } catch (KubernetesClientException e) {
            String failure = e.getCode() == 403 ? "forbidden (HTTP 403): grant create on events in the namespace " + about.namespace()
                    : e.getCode() > 0 ? "HTTP " + e.getCode() : "API server unreachable";
            // once per distinct failure, not per event: without the right (the GPU Operator's service
            // account lacks it) every event fails alike, and each is in this log already
            failures.problem(failure, "cannot post Events on " + about.kind().toLowerCase(java.util.Locale.ROOT) + " "
                    + (about.kind().equals("Node") ? "" : about.namespace() + "/") + about.name() + ": " + failure
                    + "; events are only logged meanwhile (first not posted: " + key.reason() + ": " + key.message() + ")");
            return false;
        }
    }

    private static String truncate(String message) {
        return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 1) + "…";
    }

    @Override
    public void close() {
        sender.close();
    }
}
