package io.vfiodp.doctor;

import java.util.Objects;
import java.util.Optional;

/**
 * One line of the report.
 *
 * @param check   the check's stable name ({@code iommu}, {@code device.driver}), as JSON and the metric carry it
 * @param subject what it is about when the check runs per device: the PCI address
 */
public record Finding(String check, Optional<String> subject, Outcome outcome) {

    public Finding {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(outcome, "outcome");
    }

    /** A node-wide finding. */
    public static Finding of(String check, Outcome outcome) {
        return new Finding(check, Optional.empty(), outcome);
    }

    /** A finding about {@code subject}. */
    public static Finding about(String check, String subject, Outcome outcome) {
        return new Finding(check, Optional.of(subject), outcome);
    }

    public Severity severity() {
        return outcome.severity();
    }
}
