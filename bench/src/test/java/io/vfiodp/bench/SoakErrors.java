package io.vfiodp.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Errors seen during the soak, from any thread. Expected ones are what the kubelet API lets a
 * plugin answer while the soak disturbs it (a call on a connection the kubelet restart just
 * closed, an Allocate of a device that went unhealthy after the kubelet's list was read): counted
 * by kind. Anything else is unexpected and fails the soak; the first {@value #KEEP} are kept.
 */
final class SoakErrors {

    static final int KEEP = 20;

    private final Map<String, Long> expected = new TreeMap<>();
    private final List<String> unexpected = new ArrayList<>();
    private long unexpectedCount;

    synchronized void expected(String kind) {
        expected.merge(kind, 1L, Long::sum);
    }

    synchronized void unexpected(String what) {
        unexpectedCount++;
        if (unexpected.size() < KEEP) unexpected.add(what);
    }

    synchronized Map<String, Long> expectedByKind() {
        return Map.copyOf(expected);
    }

    synchronized long unexpectedCount() {
        return unexpectedCount;
    }

    /** The first {@value #KEEP} unexpected errors, in the order they happened. */
    synchronized List<String> firstUnexpected() {
        return List.copyOf(unexpected);
    }
}
