package io.vfiodp.serve;

import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.host.uevent.UeventSource;
import io.vfiodp.node.HostScans;
import io.vfiodp.node.NodeLoop;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.UeventWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kernel uevents as a reason for a pass: each burst of events asks for a pass that reads again only
 * the devices they named ({@link HostScans}); lost events ask for a full scan. The socket is opened
 * before the first scan, so that no change falls between that scan and the first event; it is read
 * only once the node loop runs (the kernel keeps what comes meanwhile). Where uevents cannot be
 * had, it says so once and the periodic full rescan stays the only source, at its shorter period;
 * if receiving fails later, the rescan goes back to that period.
 */
final class UeventWiring {

    static final String THREAD = "vfio-dp-uevents";

    /** Opens the kernel's uevent socket, or a fake kernel's in tests. */
    @FunctionalInterface
    interface Opener {
        UeventSocket.Opening open();
    }

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private final ServeConfig config;
    private final HostScans scans;
    private final Optional<UeventSource> source;
    // the start-up thread's, then the watch thread's (started after the last start-up use)
    private final ProblemLog problems;
    private NodeLoop node;

    private UeventWiring(ServeConfig config, HostScans scans, Optional<UeventSource> source, ProblemLog problems) {
        this.config = config;
        this.scans = scans;
        this.source = source;
        this.problems = problems;
    }

    /** Opens the socket as {@code config} says (before the first scan); a socket opened goes onto {@code closer}. */
    static UeventWiring open(ServeConfig config, HostScans scans, Opener opener, Closer closer) {
        ProblemLog problems = new ProblemLog(log);
        Optional<String> skip = reasonToSkip(config);
        if (skip.isPresent()) {
            log.info("kernel uevents not used: {}; device changes are seen by the full rescan every {} and the /dev/vfio watch",
                    skip.get(), config.rescanPeriod(false));
            return new UeventWiring(config, scans, Optional.empty(), problems);
        }
        switch (opener.open()) {
            case UeventSocket.Opening.Unavailable u -> {
                problems.problem(u.describe() + " (every " + config.rescanPeriod(false) + ") and the /dev/vfio watch");
                return new UeventWiring(config, scans, Optional.empty(), problems);
            }
            case UeventSocket.Opening.Opened o -> {
                closer.add(o.socket());
                scans.tracking(true);
                log.info("kernel uevents: listening; a device change reaches the kubelet after one pass that reads only the devices"
                        + " named, and a full rescan every {} is the safety net", config.rescanPeriod(true));
                return new UeventWiring(config, scans, Optional.of(o.socket()), problems);
            }
        }
    }

    private static Optional<String> reasonToSkip(ServeConfig config) {
        if (config.uevents() == UeventMode.off) return Optional.of("--uevents off");
        if (config.uevents() == UeventMode.on) return Optional.empty();
        String type = fileSystemType(config.sysfsRoot());
        return type.equals("sysfs") ? Optional.empty()
                : Optional.of("--sysfs-root " + config.sysfsRoot() + " is no sysfs mount (" + type + "), and the kernel's events describe"
                        + " its own sysfs (--uevents on listens anyway)");
    }

    private static String fileSystemType(Path root) {
        try {
            return Files.getFileStore(root).type();
        } catch (IOException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    /** The period of the full rescan: longer while uevents arrive. */
    Duration rescanPeriod() {
        return config.rescanPeriod(source.isPresent());
    }

    /** Starts receiving, each burst asking {@code served} for a pass; the watch goes onto {@code closer}. */
    void listen(NodeLoop served, Closer closer) {
        if (source.isEmpty()) return;
        node = served;
        closer.add(UeventWatch.start(source.get(), THREAD, UeventWatch.Coalescing.DEFAULT, this::onBurst));
    }

    private void onBurst(UeventWatch.Burst burst) {
        switch (burst) {
            case UeventWatch.Burst.Changed c -> {
                problems.forget();
                scans.changed(c.devices());
            }
            case UeventWatch.Burst.Overflow o -> {
                problems.problem("overflow", "kernel uevents were lost (the socket's receive buffer overflowed): reading the whole host");
                scans.fullScanNext();
            }
            case UeventWatch.Burst.Failed f -> {
                problems.problem("kernel uevents stopped: " + f.reason() + "; device changes are seen by the full rescan, now every "
                        + config.rescanPeriod(false) + ", and the /dev/vfio watch");
                scans.tracking(false);
                node.rescanEvery(config.rescanPeriod(false));
            }
        }
        node.rescanNow();
    }
}
