package io.vfiodp.policy;

import java.util.Objects;

/** Something wrong with the configuration: an entry that was skipped (error) or overridden (warning). */
public record PolicyProblem(Severity severity, String message) {

    public enum Severity { ERROR, WARNING }

    public PolicyProblem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
    }

    static PolicyProblem error(String message) {
        return new PolicyProblem(Severity.ERROR, message);
    }

    static PolicyProblem warning(String message) {
        return new PolicyProblem(Severity.WARNING, message);
    }

    @Override
    public String toString() {
        return severity.name().toLowerCase(java.util.Locale.ROOT) + ": " + message;
    }
}
