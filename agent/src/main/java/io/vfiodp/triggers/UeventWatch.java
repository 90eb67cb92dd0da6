package io.vfiodp.triggers;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.uevent.UeventReceipt;
import io.vfiodp.host.uevent.UeventSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives kernel uevents on a {@link Worker} of its own and hands them on per burst: an operator's
 * bind is three events within milliseconds (the group node, {@code vfio-dev}, the bind), a hot-remove
 * four, so after the first event of a burst it keeps receiving until the kernel has been quiet for
 * {@link Coalescing#quiet()} (or the burst has lasted {@link Coalescing#longest()}, so that a
 * stream of events, an SR-IOV enable, still shows progress) and reports the devices they named
 * together: one pass per burst, not per event. Events about nothing a scan reads (network, block,
 * USB devices) report nothing. A full receive buffer is an {@link Burst.Overflow}: which devices
 * changed is no longer known. A socket that fails ends the watch with {@link Burst.Failed}.
 * The callback runs on the watch's thread and must only enqueue.
 */
public final class UeventWatch implements AutoCloseable {

    /** What one burst of events asks for. */
    public sealed interface Burst {
        /** The devices the burst's events named ({@link ChangedDevices#NONE}: only {@code /dev/vfio} nodes). */
        record Changed(ChangedDevices devices, int events) implements Burst {
            public Changed {
                Objects.requireNonNull(devices, "devices");
            }
        }

        /** Events were lost (ENOBUFS): only a full scan knows the host now. */
        record Overflow() implements Burst {}

        /** Receiving failed; no more events will come. */
        record Failed(String reason) implements Burst {}
    }

    /**
     * How a burst is told apart from the next.
     *
     * @param quiet   a burst is over when no event came for this long
     * @param longest a burst is reported after this long even while events keep coming
     */
    public record Coalescing(Duration quiet, Duration longest) {
        /**
         * A bind's or hot-remove's events come close together (on the test bed's guest:
         * docs/benchmarks.md, "Kernel uevents → ListAndWatch"); the quiet period ends a burst well
         * after them and adds little to the second it may take to reach the kubelet.
         */
        public static final Coalescing DEFAULT = new Coalescing(Duration.ofMillis(25), Duration.ofMillis(250));

        public Coalescing {
            if (!quiet.isPositive()) throw new IllegalArgumentException("uevent quiet period must be positive: " + quiet);
            if (longest.compareTo(quiet) < 0) throw new IllegalArgumentException("longest burst " + longest + " is below the quiet period " + quiet);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(UeventWatch.class);

    private final UeventSource source;
    private final Coalescing coalescing;
    private final Consumer<Burst> onBurst;
    private final LongSupplier nanoTime;
    private final Worker worker;
    private volatile boolean closing;
    // claimed by the receiver when it starts, or by close() when it never did: whoever claims it closes the source
    private final AtomicBoolean claimed = new AtomicBoolean();

    private UeventWatch(UeventSource source, Coalescing coalescing, Consumer<Burst> onBurst, LongSupplier nanoTime, Worker worker) {
        this.source = source;
        this.coalescing = coalescing;
        this.onBurst = onBurst;
        this.nanoTime = nanoTime;
        this.worker = worker;
    }

    /** Starts receiving from {@code source} on a worker named {@code threadName}; the watch closes the source when it ends. */
    public static UeventWatch start(UeventSource source, String threadName, Coalescing coalescing, Consumer<Burst> onBurst) {
        return start(source, threadName, coalescing, onBurst, System::nanoTime);
    }

    static UeventWatch start(UeventSource source, String threadName, Coalescing coalescing, Consumer<Burst> onBurst, LongSupplier nanoTime) {
        UeventWatch w = new UeventWatch(Objects.requireNonNull(source, "source"), Objects.requireNonNull(coalescing, "coalescing"),
                Objects.requireNonNull(onBurst, "onBurst"), nanoTime, Worker.start(threadName));
        w.worker.execute(w::run);
        return w;
    }

    private void run() {
        if (!claimed.compareAndSet(false, true)) return;
        try {
            while (!closing) {
                switch (source.receive()) {
                    case UeventReceipt.Event e -> burst(e);
                    case UeventReceipt.Overflow o -> burst(null);
                    case UeventReceipt.Dropped d -> log.debug("uevent dropped: {}", d.reason());
                    case UeventReceipt.Idle i -> { }
                    case UeventReceipt.Woken w -> { }
                }
            }
        } catch (RuntimeException e) {
            if (!closing) onBurst.accept(new Burst.Failed(e.getMessage() != null ? e.getMessage() : e.toString()));
        } finally {
            source.close();
        }
    }

    /** Receives the rest of the burst that {@code first} opened (null: an overflow opened it) and reports it. */
    private void burst(UeventReceipt.Event first) {
        boolean overflow = first == null;
        boolean named = false;
        ChangedDevices changed = ChangedDevices.NONE;
        int events = 0;
        if (first != null) {
            events = 1;
            var c = first.event().changes();
            named = c.isPresent();
            changed = c.orElse(ChangedDevices.NONE);
        }
        long end = nanoTime.getAsLong() + coalescing.longest().toNanos();
        receiving:
        while (!closing) {
            long left = end - nanoTime.getAsLong();
            if (left <= 0) break;
            Duration wait = Duration.ofNanos(Math.min(left, coalescing.quiet().toNanos()));
            switch (source.receive(wait)) {
                case UeventReceipt.Event e -> {
                    events++;
                    var c = e.event().changes();
                    if (c.isPresent()) {
                        named = true;
                        changed = changed.plus(c.get());
                    }
                }
                case UeventReceipt.Overflow o -> overflow = true;
                case UeventReceipt.Dropped d -> log.debug("uevent dropped: {}", d.reason());
                case UeventReceipt.Idle i -> {
                    break receiving;
                }
                case UeventReceipt.Woken w -> {
                    break receiving;
                }
            }
        }
        if (closing) return;
        if (overflow) onBurst.accept(new Burst.Overflow());
        else if (named) onBurst.accept(new Burst.Changed(changed, events));
    }

    /** Stops receiving: wakes the receiver, which closes the source, and waits briefly for it. */
    @Override
    public void close() {
        closing = true;
        if (claimed.compareAndSet(false, true)) {
            source.close();
        } else {
            source.wakeup();
        }
        worker.close();
    }
}
