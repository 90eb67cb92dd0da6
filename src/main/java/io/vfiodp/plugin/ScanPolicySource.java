package io.vfiodp.plugin;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciIds;
import io.vfiodp.policy.Departures;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.ConfigFile;
import io.vfiodp.policy.config.InvalidConfigException;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scan, then policy: the node state the plugin serves. The configuration file is read on every
 * call, so an edited ConfigMap takes effect at the next rescan; a file that became invalid
 * fails the rescan and the previous state stays. A device that left since the last pass is
 * served one more pass as Unhealthy with the reason ({@link Departures}).
 */
public final class ScanPolicySource implements NodeStateSource {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Supplier<HostSnapshot> scan;
    private final Optional<Path> config;
    private final PciIds pciIds;
    // Calls come one after another (start, then the rescan thread); remembered to log a problem once, not every rescan.
    private volatile List<String> lastNotes = List.of();
    // The last pass's own policy output, to serve what left since then one more pass as Unhealthy.
    private volatile DesiredState lastDesired = DesiredState.EMPTY;

    public ScanPolicySource(Supplier<HostSnapshot> scan, Optional<Path> config, PciIds pciIds) {
        this.scan = scan;
        this.config = config;
        this.pciIds = pciIds;
    }

    /** One scan and policy pass, with everything the inventory needs. */
    public record Evaluation(HostSnapshot snapshot, PolicyResult result, List<String> configWarnings) {
        public TargetState target() {
            return new TargetState(result.desiredState(), snapshot.devNodes());
        }
    }

    public Evaluation evaluate() {
        List<String> warnings = List.of();
        Optional<PermittedHostDevices> permitted = Optional.empty();
        if (config.isPresent()) {
            try {
                ConfigFile.Loaded loaded = ConfigFile.read(config.get());
                permitted = Optional.of(loaded.permittedHostDevices());
                warnings = loaded.warnings();
            } catch (InvalidConfigException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        HostSnapshot snapshot = scan.get();
        return new Evaluation(snapshot, PolicyEngine.evaluate(snapshot, permitted, pciIds), warnings);
    }

    @Override
    public TargetState read() {
        Evaluation e = evaluate();
        List<String> notes = new ArrayList<>(e.configWarnings());
        e.result().problems().forEach(p -> notes.add(p.toString()));
        e.snapshot().problems().forEach(p -> notes.add("scan skipped " + p.path() + ": " + p.reason()));
        if (!notes.equals(lastNotes)) {
            for (String n : notes) if (!lastNotes.contains(n)) log.warn("{}", n);
            lastNotes = List.copyOf(notes);
        }
        DesiredState served = Departures.keepOneMorePass(lastDesired, e.result());
        lastDesired = e.result().desiredState();
        return new TargetState(served, e.snapshot().devNodes());
    }
}
