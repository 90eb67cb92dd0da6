package io.vfiodp.host.scan;

import io.vfiodp.host.ScanProblem;

/**
 * One sysfs or /dev entry could not be read as the kernel would show it. Raised inside the
 * scan and turned into a {@link ScanProblem} for exactly that entry; it never leaves the
 * scanner.
 */
final class EntryUnreadable extends Exception {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final boolean missing;

    EntryUnreadable(String path, String reason) {
        this(path, reason, false);
    }

    private EntryUnreadable(String path, String reason, boolean missing) {
        super(reason, null, false, false);
        this.path = path;
        this.missing = missing;
    }

    /** The entry does not exist at all (as opposed to existing in a form we cannot read). */
    static EntryUnreadable missing(String path) {
        return new EntryUnreadable(path, "missing", true);
    }

    boolean isMissing() {
        return missing;
    }

    String path() {
        return path;
    }

    String reason() {
        return getMessage();
    }

    ScanProblem toProblem() {
        return new ScanProblem(path, getMessage());
    }
}
