package io.vfiodp.metrics;

import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.TargetState;

/** A node state source whose every read is timed into the scan metrics. */
public final class TimedSource implements NodeStateSource {

    private final NodeStateSource source;
    private final ServingMetrics metrics;

    public TimedSource(NodeStateSource source, ServingMetrics metrics) {
        this.source = source;
        this.metrics = metrics;
    }

    @Override
    public TargetState read() {
        long start = System.nanoTime();
        try {
            TargetState state = source.read();
            metrics.scanSucceeded((System.nanoTime() - start) / 1e9);
            return state;
        } catch (RuntimeException e) {
            metrics.scanFailed((System.nanoTime() - start) / 1e9);
            throw e;
        }
    }
}
