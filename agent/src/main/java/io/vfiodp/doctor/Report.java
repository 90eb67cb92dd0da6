package io.vfiodp.doctor;

import java.util.List;
import java.util.stream.Collectors;

/** Every finding of one examination of the node, in the order the checks ran. */
public record Report(List<Finding> findings) {

    public Report {
        findings = List.copyOf(findings);
    }

    public Verdict verdict() {
        if (count(Severity.FAIL) > 0) return Verdict.NOT_READY;
        return count(Severity.WARN) > 0 ? Verdict.WARNINGS : Verdict.READY;
    }

    public long count(Severity severity) {
        return findings.stream().filter(f -> f.severity() == severity).count();
    }

    public List<Finding> with(Severity severity) {
        return findings.stream().filter(f -> f.severity() == severity).toList();
    }

    /** {@code not ready: 2 fail, 1 warn, 14 ok}. */
    public String tally() {
        return verdict().words() + ": " + count(Severity.FAIL) + " fail, " + count(Severity.WARN) + " warn, " + count(Severity.OK) + " ok";
    }

    /**
     * One line for a log: the tally, and what fails (else what warns), each as {@code check subject: detail}.
     * A line that needs more says how many more.
     */
    public String summary(int atMost) {
        List<Finding> named = verdict() == Verdict.NOT_READY ? with(Severity.FAIL) : with(Severity.WARN);
        if (named.isEmpty()) return tally();
        String shown = named.stream().limit(atMost).map(Report::oneLine).collect(Collectors.joining("; "));
        return tally() + " (" + shown + (named.size() > atMost ? "; and " + (named.size() - atMost) + " more" : "") + ")";
    }

    static String oneLine(Finding f) {
        return f.check() + f.subject().map(s -> " " + s).orElse("") + ": " + f.outcome().detail();
    }
}
