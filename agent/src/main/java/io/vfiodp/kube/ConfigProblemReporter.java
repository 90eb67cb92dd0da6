package io.vfiodp.kube;

import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.triggers.NewLines;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator about the permittedHostDevices entries the policy skipped or overrode: one
 * log line when a problem first appears (not on every rescan), and a Warning Event on the Node
 * (re-posted while the problem lasts, rate-limited by {@link NodeEventRecorder}); serve counts the
 * same problems in the metrics beside it. Called after every policy evaluation, on the reconcile
 * thread; it never blocks on the API server.
 */
public final class ConfigProblemReporter {

    /** Event reason for an entry the policy skipped. */
    public static final String REASON_INVALID = "InvalidPermittedHostDevice";
    /** Event reason for an entry a later one with the same selector replaced. */
    public static final String REASON_OVERRIDDEN = "OverriddenPermittedHostDevice";

    private static final Logger LOG = LoggerFactory.getLogger(ConfigProblemReporter.class);

    private final Optional<NodeEventRecorder> events;
    private final NewLines newLines = new NewLines();

    public ConfigProblemReporter(Optional<NodeEventRecorder> events) {
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * @param source   where the configuration came from, for the operator: {@code KubeVirt CR kubevirt/kubevirt}
     *                 or {@code --config /etc/vfio-dp/config.yaml}
     * @param problems the policy's problems for that configuration, all of them
     */
    public void report(String source, List<PolicyProblem> problems) {
        List<String> lines = new ArrayList<>();
        for (PolicyProblem p : problems) {
            String line = source + ": " + p.message();
            lines.add(line);
            events.ifPresent(e -> e.warn(p.severity() == PolicyProblem.Severity.ERROR ? REASON_INVALID : REASON_OVERRIDDEN, line));
        }
        for (String fresh : newLines.since(lines)) LOG.warn("{}", fresh);
    }
}
