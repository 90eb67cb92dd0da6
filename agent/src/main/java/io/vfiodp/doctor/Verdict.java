package io.vfiodp.doctor;

/** The report's answer for the node, and {@code doctor}'s exit status. */
public enum Verdict {
    /** Every check is ok. */
    READY(0, "ready"),
    /** Devices can be passed through; some checks warn. */
    WARNINGS(1, "ready, with warnings"),
    /** Some check fails: something in the way of passing devices through. */
    NOT_READY(2, "not ready");

    private final int exitCode;
    private final String words;

    Verdict(int exitCode, String words) {
        this.exitCode = exitCode;
        this.words = words;
    }

    public int exitCode() {
        return exitCode;
    }

    public String words() {
        return words;
    }
}
