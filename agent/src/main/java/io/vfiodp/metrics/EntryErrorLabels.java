package io.vfiodp.metrics;

import io.vfiodp.policy.PolicyProblem;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One label set of {@code vfio_dp_config_entry_errors}: why, and which entry. */
public record EntryErrorLabels(String reason, String entry) {

    private static final Pattern ENTRY = Pattern.compile("^((?:pciHostDevices|mediatedDevices)\\[\\d+])");

    public EntryErrorLabels {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(entry, "entry");
    }

    /**
     * The metric labels of a problem. The policy writes every entry problem as
     * {@code <list>[<index>] ...}; the reason is read from the wording it uses for each kind.
     */
    public static EntryErrorLabels of(PolicyProblem p) {
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
        return new EntryErrorLabels(reason, entry);
    }
}
