package io.vfiodp.doctor;

import java.util.Objects;

/** What one check found: fine, worth changing, or in the way of passing devices through; the last two with the fix. */
public sealed interface Outcome {

    String detail();

    Severity severity();

    record Ok(String detail) implements Outcome {
        public Ok {
            requireDetail(detail);
        }

        @Override
        public Severity severity() {
            return Severity.OK;
        }
    }

    record Warn(String detail, Fix fix) implements Outcome {
        public Warn {
            requireDetail(detail);
            Objects.requireNonNull(fix, "fix");
        }

        @Override
        public Severity severity() {
            return Severity.WARN;
        }
    }

    record Fail(String detail, Fix fix) implements Outcome {
        public Fail {
            requireDetail(detail);
            Objects.requireNonNull(fix, "fix");
        }

        @Override
        public Severity severity() {
            return Severity.FAIL;
        }
    }

    private static void requireDetail(String detail) {
        if (detail == null || detail.isBlank()) throw new IllegalArgumentException("an outcome needs a detail");
    }
}
