package io.vfiodp.node;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.scan.HostScan;
import io.vfiodp.host.scan.SysfsScanner;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The scan of every pass. While kernel uevents are {@linkplain #tracking(boolean) tracked}, a pass
 * reads again only the devices the events named since the pass before (and {@code /dev}), on top
 * of the last scan, which gives the snapshot a full scan would; otherwise, and for the first pass,
 * after lost events and whenever a {@linkplain #fullScanNext() full scan is asked for} (the
 * periodic safety net, a pass that wrote to sysfs), it reads everything.
 *
 * <p>{@link #get()} runs on the pass thread only, which alone holds the last {@link HostScan};
 * the other methods may be called from any thread (the uevent watch's).
 */
public final class HostScans implements Supplier<HostSnapshot> {

    /** How many scans of each kind were made: what tests and the log can tell from outside. */
    public record Counts(long full, long incremental) {}

    private final SysfsScanner scanner;
    private final AtomicReference<ChangedDevices> pending = new AtomicReference<>(ChangedDevices.NONE);
    private final AtomicBoolean fullNext = new AtomicBoolean(true);
    private final AtomicLong full = new AtomicLong();
    private final AtomicLong incremental = new AtomicLong();
    private volatile boolean tracking;
    // the pass thread's
    private HostScan last;

    public HostScans(SysfsScanner scanner) {
        this.scanner = Objects.requireNonNull(scanner, "scanner");
    }

    /** Whether kernel uevents reach {@link #changed}: only then may a pass skip devices no event named. */
    public void tracking(boolean on) {
        tracking = on;
        if (!on) fullNext.set(true);
    }

    public boolean tracking() {
        return tracking;
    }

    /** Devices events named: the next pass reads them again. */
    public void changed(ChangedDevices devices) {
        pending.accumulateAndGet(devices, ChangedDevices::plus);
    }

    /** The next pass reads everything (events were lost, the periodic safety net, a write to sysfs). */
    public void fullScanNext() {
        fullNext.set(true);
    }

    /** Whether the next pass has devices to read again or must read everything. */
    public boolean hasPending() {
        return fullNext.get() || !pending.get().isEmpty();
    }

    public Counts counts() {
        return new Counts(full.get(), incremental.get());
    }

    /** The host now, on the pass thread. */
    @Override
    public HostSnapshot get() {
        ChangedDevices changes = pending.getAndSet(ChangedDevices.NONE);
        boolean readAll = fullNext.getAndSet(false) || last == null || !tracking;
        try {
            if (readAll) {
                last = scanner.fullScan();
                full.incrementAndGet();
            } else {
                last = scanner.rescan(last, changes);
                incremental.incrementAndGet();
            }
            return last.snapshot();
        } catch (RuntimeException e) {
            // the changes taken are not in any scan: only reading everything catches up
            fullNext.set(true);
            throw e;
        }
    }
}
