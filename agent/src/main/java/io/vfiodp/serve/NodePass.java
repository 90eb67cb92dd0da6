package io.vfiodp.serve;

import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.HostScans;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.vgpu.VgpuLayoutStep;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * One pass of {@code serve}, at start and at every rescan, its steps in order: read the
 * configuration once (the KubeVirt CR or the {@code --config} file, both blocks), bring the vGPU
 * layout in line when serve manages it, then scan and apply the policy. The scan metrics time the
 * reading and the scan, never the layout's sysfs writes. Where the scan follows kernel uevents
 * ({@link HostScans}), a pass whose layout step wrote to sysfs reads the whole host, as does
 * {@link #readFully()}: a vGPU type written to a VF sends no uevent. What scan and policy want is
 * then cut by the {@link NodeSwitch} so that no device is offered both ways, and the state goes to
 * the DRA driver, when one runs, before the device plugins get it: the passes come one after
 * another, so the driver sees the states in the order the device plugins do.
 */
public final class NodePass implements NodeStateSource {

    private final ConfigSource configs;
    private final Optional<VgpuLayoutStep> layout;
    private final ScanPolicySource scanPolicy;
    private final ServingMetrics metrics;
    private final LongSupplier nanoTime;
    private final Optional<HostScans> scans;
    private final Optional<NodeSwitch> handover;
    private final Function<TargetState, CompletableFuture<Void>> dra;
    private final Consumer<TargetState> wantedSeen;

    /** A pass whose scan reads everything every time, for the device plugins alone. */
    public NodePass(ConfigSource configs, Optional<VgpuLayoutStep> layout, ScanPolicySource scanPolicy, ServingMetrics metrics,
                    LongSupplier nanoTime) {
        this(configs, layout, scanPolicy, Optional.empty(), metrics, nanoTime, Optional.empty(), state -> CompletableFuture.completedFuture(null),
                wanted -> { });
    }

    /**
     * @param scans    the scans {@code scanPolicy} reads, when they may be incremental
     * @param handover cuts every state so that no device is offered both ways; without it, states go as the policy made them
     * @param dra      takes every state the pass makes (the DRA driver's {@code apply}, which only enqueues); its answer
     *                 completes once the driver decides on it
     * @param wantedSeen told every state scan and policy make, before the switch cuts it: every device of the node, one that
     *                 waits for a side to let go of it included (who holds what); must return at once
     */
    NodePass(ConfigSource configs, Optional<VgpuLayoutStep> layout, ScanPolicySource scanPolicy, Optional<HostScans> scans,
             ServingMetrics metrics, LongSupplier nanoTime, Optional<NodeSwitch> handover, Function<TargetState, CompletableFuture<Void>> dra,
             Consumer<TargetState> wantedSeen) {
        this.configs = configs;
        this.layout = layout;
        this.scanPolicy = scanPolicy;
        this.scans = scans;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
        this.handover = handover;
        this.dra = dra;
        this.wantedSeen = wantedSeen;
    }

    @Override
    public TargetState readFully() {
        scans.ifPresent(HostScans::fullScanNext);
        return read();
    }

    @Override
    public TargetState read() {
        long start = nanoTime.getAsLong();
        ConfigSource.Current config;
        try {
            config = configs.current();
        } catch (RuntimeException e) {
            metrics.scanFailed(seconds(nanoTime.getAsLong() - start));
            throw e;
        }
        long reading = nanoTime.getAsLong() - start;
        if (layout.isPresent() && layout.get().apply(config.layout())) scans.ifPresent(HostScans::fullScanNext);
        long scanStart = nanoTime.getAsLong();
        try {
            TargetState wanted = scanPolicy.read(config);
            metrics.scanSucceeded(seconds(reading + nanoTime.getAsLong() - scanStart));
            wantedSeen.accept(wanted);
            TargetState state = handover.map(h -> h.decide(wanted)).orElse(wanted);
            CompletableFuture<Void> takenIn = dra.apply(state);
            handover.ifPresent(h -> h.handedToDra(state, takenIn));
            return state;
        } catch (RuntimeException e) {
            metrics.scanFailed(seconds(reading + nanoTime.getAsLong() - scanStart));
            throw e;
        }
    }

    @Override
    public boolean wantsAnotherPass() {
        return scanPolicy.wantsAnotherPass() || handover.map(NodeSwitch::waiting).orElse(false);
    }

    @Override
    public void devicePluginsHanded(TargetState state, CompletableFuture<Void> takenIn) {
        handover.ifPresent(h -> h.handedToPlugins(state, takenIn));
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
