package io.vfiodp.host;

/** Why the scan skipped an entry: the path relative to the scanned root, and the reason. */
public record ScanProblem(String path, String reason) {}
