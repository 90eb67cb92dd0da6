package io.vfiodp.serve;

import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.policy.PolicyEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * serve's pci.ids: read on a thread of its own from the start of {@code serve}, so that the
 * first pass finds it read while it scans (the first pass needs it only after the scan, and
 * reading it is mostly inflating the compressed file, work a second core can do meanwhile). Read for
 * {@link PolicyEngine#VENDORS_EVER_NAMED}, every vendor the policy can name devices of, which
 * covers what any first pass asks for; a later ask beyond it reads the file again, on the
 * asking thread, as without the preload.
 *
 * <p>The thread ({@value #THREAD}) ends when the file is read; {@link #close()} waits for it, so
 * that serve leaves no thread behind even when it fails during start-up, for a bounded time.
 */
final class PciIdsPreload implements ScanPolicySource.PciIdsLoader, AutoCloseable {

    static final String THREAD = "vfio-dp-pci-ids";
    static final Duration CLOSE_WAIT = Duration.ofSeconds(3);
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.serve");

    private final Optional<Path> explicit;
    private final Thread reader;
    // the preloaded database, until the first ask takes it
    private CompletableFuture<PciIds> preloaded;

    private PciIdsPreload(Optional<Path> explicit, Thread reader, CompletableFuture<PciIds> preloaded) {
        this.explicit = explicit;
        this.reader = reader;
        this.preloaded = preloaded;
    }

    /** Starts reading the copy {@link PciIds#load(Optional, Set)} chooses, the explicit file when given. */
    static PciIdsPreload start(Optional<Path> explicit) {
        CompletableFuture<PciIds> preloaded = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().daemon().name(THREAD).start(() -> {
            try {
                preloaded.complete(PciIds.load(explicit, PolicyEngine.VENDORS_EVER_NAMED));
            } catch (IOException | RuntimeException | Error e) {
                preloaded.completeExceptionally(e);
            }
        });
        return new PciIdsPreload(explicit, reader, preloaded);
    }

    /** The preloaded database when it covers {@code deviceVendors} and was not taken yet, else the file read again. */
    @Override
    public synchronized PciIds load(Set<Integer> deviceVendors) throws IOException {
        CompletableFuture<PciIds> taken = preloaded;
        preloaded = null;
        if (taken == null || !PolicyEngine.VENDORS_EVER_NAMED.containsAll(deviceVendors)) {
            return PciIds.load(explicit, deviceVendors);
        }
        try {
            return taken.join();
        } catch (CompletionException e) {
            // the reader's failure, with the message the same read would have failed with here
            if (e.getCause() instanceof IOException io) throw new IOException(io.getMessage(), io);
            if (e.getCause() instanceof RuntimeException re) throw re;
            if (e.getCause() instanceof Error error) throw error;
            throw e;
        }
    }

    /** The thread that reads the file. */
    Thread reader() {
        return reader;
    }

    /**
     * Waits up to {@link #CLOSE_WAIT} for the reader thread to end: a pci.ids on a mount that hangs
     * must not hold serve's shutdown; the thread is a daemon and ends with the process then.
     */
    @Override
    public void close() throws InterruptedException {
        if (!reader.join(CLOSE_WAIT)) {
            log.warn("pci.ids: still reading {} after {} s at shutdown; leaving the reader thread, a daemon, to end with the process",
                    explicit.map(Path::toString).orElse("the system's or the bundled copy"), CLOSE_WAIT.toSeconds());
        }
    }
}
