package io.vfiodp.doctor;

import java.util.Locale;

/** How bad an outcome is, in the order the report's verdict weighs them. */
public enum Severity {
    OK, WARN, FAIL;

    /** {@code ok}, {@code warn}, {@code fail}: the word the text and JSON reports print. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
