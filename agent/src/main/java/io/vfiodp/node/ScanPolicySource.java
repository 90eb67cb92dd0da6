package io.vfiodp.node;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.Departures;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.policy.config.LocalConfig;
import io.vfiodp.policy.config.PermittedHostDevices;
import io.vfiodp.triggers.NewLines;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scan, then policy: the node state the plugin serves. The configuration comes from a
 * {@link ConfigSource} asked on every call: the {@code --config} file is read again, so
 * an edited ConfigMap takes effect at the next rescan, and a KubeVirt CR edit takes effect at the
 * rescan its watcher asks for. A file that became invalid fails the rescan and the previous
 * state stays. A device the host took away since the last pass is served one more pass as
 * Unhealthy with the reason ({@link Departures}); a configuration change applies at once.
 */
public final class ScanPolicySource implements NodeStateSource {

    /** Receives the policy's configuration problems after every pass, with the configuration's origin. */
    @FunctionalInterface
    public interface ProblemSink {
        void report(String origin, List<PolicyProblem> problems);
    }

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Supplier<HostSnapshot> scan;
    private final ConfigSource configs;
    private final PciIdsLoader pciIdsLoader;
    private final Optional<ProblemSink> problemSink;
    private volatile PciIds pciIds;
    // Calls come one after another (start, then the pass thread): a problem is logged when it appears, not every rescan.
    private final NewLines newNotes = new NewLines();
    // The last pass's own policy output, to serve what left since then one more pass as Unhealthy.
    private volatile DesiredState lastDesired = DesiredState.EMPTY;
    // Whether the last pass served departed devices one last time.
    private volatile boolean departing;
    private volatile Optional<PermittedHostDevices> lastPermitted = Optional.empty();
    private final DraRouting routing;
    private final Consumer<Evaluation> evaluated;
    // The last pass's DRA profiles: a device the host took away keeps its profile for its last, Unhealthy pass.
    private volatile DraOffer lastOffer = DraOffer.EMPTY;

    public ScanPolicySource(Supplier<HostSnapshot> scan, Optional<Path> config, PciIds pciIds) {
        this(scan, LocalConfig.of(config), vendors -> pciIds, Optional.empty());
    }

    /** As the longer constructor, with the configuration's problems logged here. */
    public ScanPolicySource(Supplier<HostSnapshot> scan, ConfigSource configs, PciIds pciIds) {
        this(scan, configs, vendors -> pciIds, Optional.empty());
    }

    /** Reads the pci.ids database with the device names of at least the given vendors. */
    @FunctionalInterface
    public interface PciIdsLoader {
        PciIds load(Set<Integer> deviceVendors) throws IOException;
    }

    /**
     * @param pciIdsLoader loaded on the first {@link #read()} for the vendors the policy names devices
     *                     of on this host, and again when a scan finds one it was not loaded for
     * @param problemSink  takes over reporting the policy's configuration problems (otherwise
     *                     they are logged here, once each)
     */
    public ScanPolicySource(Supplier<HostSnapshot> scan, ConfigSource configs, PciIdsLoader pciIdsLoader,
            Optional<ProblemSink> problemSink) {
        this(scan, configs, pciIdsLoader, problemSink, DraRouting.NONE, evaluation -> { });
    }

    /**
     * As above, serving the resources {@code routing} names through DRA and the others through
     * device plugins, and handing every pass's evaluation to {@code evaluated} before the pass's
     * state is returned (serve's readiness: can the node pass anything through); it runs on the
     * pass's thread.
     */
    public ScanPolicySource(Supplier<HostSnapshot> scan, ConfigSource configs, PciIdsLoader pciIdsLoader,
            Optional<ProblemSink> problemSink, DraRouting routing, Consumer<Evaluation> evaluated) {
        this.evaluated = evaluated;
        this.routing = routing;
        this.scan = scan;
        this.configs = configs;
        this.pciIdsLoader = pciIdsLoader;
        this.problemSink = problemSink;
    }

    private PciIds pciIds(HostSnapshot snapshot) {
        Set<Integer> vendors = new HashSet<>(PolicyEngine.vendorsNamed(snapshot));
        PciIds ids = pciIds;
        if (ids == null || !ids.hasDeviceNamesOf(vendors)) {
            // what it had plus what is new: a device that comes and goes does not make every pass read the file
            if (ids != null) ids.deviceVendors().ifPresent(vendors::addAll);
            try {
                ids = pciIdsLoader.load(vendors);
            } catch (IOException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            pciIds = ids;
        }
        return ids;
    }

    /**
     * One scan and policy pass, with everything the inventory and doctor need.
     *
     * @param permitted the permitted devices the policy applied (empty: the default policy)
     * @param pciIds    the device names it used
     */
    public record Evaluation(HostSnapshot snapshot, PolicyResult result, List<String> configWarnings, String configOrigin,
                             ConfigSource.LayoutSetting layout, Optional<PermittedHostDevices> permitted, PciIds pciIds) {}

    public Evaluation evaluate() {
        return evaluate(configs.current());
    }

    private Evaluation evaluate(ConfigSource.Current config) {
        HostSnapshot snapshot = scan.get();
        PciIds ids = pciIds(snapshot);
        return new Evaluation(snapshot, PolicyEngine.evaluate(snapshot, config.permitted(), ids), config.warnings(), config.origin(),
                config.layout(), config.permitted(), ids);
    }

    /** Reads the configuration, then {@link #read(ConfigSource.Current)}. */
    @Override
    public TargetState read() {
        return read(configs.current());
    }

    /** Scan and policy under {@code config}, read once for the whole pass by the caller. */
    public TargetState read(ConfigSource.Current config) {
        Evaluation e = evaluate(config);
        evaluated.accept(e);
        List<String> notes = new ArrayList<>(e.configWarnings());
        if (problemSink.isPresent()) {
            problemSink.get().report(e.configOrigin(), e.result().problems());
        } else {
            e.result().problems().forEach(p -> notes.add(p.toString()));
        }
        e.snapshot().problems().forEach(p -> notes.add("scan skipped " + p.path() + ": " + p.reason()));
        routing.unmatched(e.result().desiredState()).forEach(r -> notes.add("DRA resource " + r + " is not served on this node"));
        for (String fresh : newNotes.since(notes)) log.warn("{}", fresh);
        // An operator's configuration change applies at once; only devices the host took away get the Unhealthy pass.
        DesiredState served = config.permitted().equals(lastPermitted) ? Departures.keepOneMorePass(lastDesired, e.result())
                : e.result().desiredState();
        departing = !served.equals(e.result().desiredState());
        lastDesired = e.result().desiredState();
        lastPermitted = config.permitted();
        DraRouting.Split split = routing.split(served);
        DraOffer offer = DraOffer.describe(split.dra(), e.snapshot(), e.pciIds(), lastOffer);
        lastOffer = offer;
        return new TargetState(split.devicePlugins(), e.snapshot().devNodes(), offer);
    }

    /** Whether the last pass served devices the host took away, as Unhealthy, for their last time. */
    @Override
    public boolean wantsAnotherPass() {
        return departing;
    }
}
