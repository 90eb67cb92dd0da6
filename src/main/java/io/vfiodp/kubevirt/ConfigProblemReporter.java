package io.vfiodp.kubevirt;

import io.vfiodp.metrics.PluginMetrics;
import io.vfiodp.policy.PolicyProblem;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator about the permittedHostDevices entries the policy skipped or overrode: one
 * log line when a problem first appears (not on every rescan), a Warning Event on the Node
 * (re-posted while the problem lasts, rate-limited by {@link NodeEventRecorder}) and the
 * {@code vfio_dp_config_entry_errors} metric. Called after every policy evaluation, on the
 * reconcile thread; it never blocks on the API server.
 */
public final class ConfigProblemReporter {

    /** Event reason for an entry the policy skipped. */
    public static final String REASON_INVALID = "InvalidPermittedHostDevice";
    /** Event reason for an entry a later one with the same selector replaced. */
    public static final String REASON_OVERRIDDEN = "OverriddenPermittedHostDevice";

    private static final Logger LOG = LoggerFactory.getLogger(ConfigProblemReporter.class);
    private static final Pattern ENTRY = Pattern.compile("^((?:pciHostDevices|mediatedDevices)\\[\\d+])");

    private final Optional<NodeEventRecorder> events;
    private final PluginMetrics metrics;
    private Set<String> logged = Set.of();

    public ConfigProblemReporter(Optional<NodeEventRecorder> events, PluginMetrics metrics) {
        this.events = Objects.requireNonNull(events, "events");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * @param source   where the configuration came from, for the operator: {@code KubeVirt CR kubevirt/kubevirt}
     *                 or {@code --config /etc/vfio-dp/config.yaml}
     * @param problems the policy's problems for that configuration, all of them
     */
    public void report(String source, List<PolicyProblem> problems) {
        Set<String> current = new LinkedHashSet<>();
        List<PluginMetrics.EntryErrorLabels> labels = new ArrayList<>();
        for (PolicyProblem p : problems) {
            String line = source + ": " + p.message();
            current.add(line);
            if (!logged.contains(line)) LOG.warn("{}", line);
            events.ifPresent(e -> e.warn(p.severity() == PolicyProblem.Severity.ERROR ? REASON_INVALID : REASON_OVERRIDDEN, line));
            labels.add(labels(p));
        }
        logged = current;
        metrics.setConfigEntryErrors(labels);
    }

    /**
     * The metric labels of a problem. The policy writes every entry problem as
     * {@code <list>[<index>] ...}; the reason is read from the wording it uses for each kind.
     */
    static PluginMetrics.EntryErrorLabels labels(PolicyProblem p) {
        Matcher m = ENTRY.matcher(p.message());
        String entry = m.find() ? m.group(1) : "configuration";
        String text = p.message();
        String reason;
        if (text.contains("repeats the selector")) reason = "duplicate_selector";
        else if (text.contains("so KubeVirt's virt-handler serves those devices")) reason = "served_by_kubevirt";
        else if (text.contains("cannot mix")) reason = "mixed_kinds";
        else if (text.contains("pciVendorSelector must be") || text.contains("mdevNameSelector is empty")
                || text.contains("mdevNameSelector contains")) reason = "malformed_selector";
        else if (text.contains("has no domain prefix")) reason = "missing_domain";
        else if (text.contains("resource name")) reason = "invalid_resource_name";
        else reason = "other";
        return new PluginMetrics.EntryErrorLabels(reason, entry);
    }
}
