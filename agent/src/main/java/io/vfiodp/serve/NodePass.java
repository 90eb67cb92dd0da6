package io.vfiodp.serve;

import io.vfiodp.handover.HandoverGate;
import io.vfiodp.metrics.ServingMetrics;
import io.vfiodp.node.HostScans;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.vgpu.VgpuLayoutPhase;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One pass of {@code serve}, at start and at every rescan, its steps in order: read the
 * configuration once (the KubeVirt CR or the {@code --config} file, both blocks), bring the vGPU
 * layout in line when serve manages it, then scan and apply the policy. The scan metrics time the
 * reading and the scan, never the layout's sysfs writes. Where the scan follows kernel uevents
 * ({@link HostScans}), a pass whose layout step wrote to sysfs reads the whole host, as does
 * {@link #readFully()}: a vGPU type written to a VF sends no uevent. What scan and policy want is
 * then cut by the {@link HandoverGate} so that no device is offered both ways; the node loop hands
 * the state to the sides.
 */
public final class NodePass implements NodeStateSource {

    private final ConfigSource configs;
    private final Optional<VgpuLayoutPhase> layout;
    private final ScanPolicySource scanPolicy;
    private final ServingMetrics metrics;
    private final LongSupplier nanoTime;
    private final Optional<HostScans> scans;
    private final Optional<HandoverGate> handover;
    private final Consumer<TargetState> wantedSeen;

    /**
     * @param scans    the scans {@code scanPolicy} reads, when they may be incremental; empty: it reads everything every time
     * @param handover cuts every state so that no device is offered both ways; without it, states go as the policy made them
     * @param wantedSeen told every state scan and policy make, before the switch cuts it: every device of the node, one that
     *                 waits for a side to let go of it included (who holds what); must return at once
     */
    public NodePass(ConfigSource configs, Optional<VgpuLayoutPhase> layout, ScanPolicySource scanPolicy, Optional<HostScans> scans,
                    ServingMetrics metrics, LongSupplier nanoTime, Optional<HandoverGate> handover, Consumer<TargetState> wantedSeen) {
        this.configs = configs;
        this.layout = layout;
        this.scanPolicy = scanPolicy;
        this.scans = scans;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
        this.handover = handover;
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
            return handover.map(h -> h.decide(wanted)).orElse(wanted);
        } catch (RuntimeException e) {
            metrics.scanFailed(seconds(reading + nanoTime.getAsLong() - scanStart));
            throw e;
        }
    }

    @Override
    public boolean wantsAnotherPass() {
        return scanPolicy.wantsAnotherPass() || handover.map(HandoverGate::waiting).orElse(false);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
