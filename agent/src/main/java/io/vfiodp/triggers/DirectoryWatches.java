package io.vfiodp.triggers;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any number of {@link DirectoryWatch}es on one {@link WatchService} and one thread. Each
 * WatchService of the JDK runs a poller thread of its own ({@code FileSystemWatchService}) next to
 * the thread that takes its keys, so a watch per service cost two threads: serve's two directories
 * (the device-plugin dir, {@code /dev/vfio}) four, with DRA's two more eight; here two in all.
 * Callbacks run on the one thread, in the order the kernel reported, and must only enqueue.
 *
 * <p>The JDK hands out one key per directory, so two watches can hold the same key (one watching
 * a directory, another waiting for an entry of it to appear): events of a key go to every watch
 * holding it, and a key is cancelled only when no watch holds it any more.
 */
public final class DirectoryWatches implements DirectoryWatcher, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectoryWatches.class);

    private final WatchService service;
    private final Thread thread;
    // Guards the list, every watch's keys and the callbacks: a watch closed is never called again.
    private final Object lock = new Object();
    private final List<DirectoryWatch> watches = new ArrayList<>();
    private boolean closed;

    private DirectoryWatches(WatchService service, String threadName) {
        this.service = service;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** A WatchService of the default file system and its thread, named {@code threadName}. */
    public static DirectoryWatches start(String threadName) throws IOException {
        DirectoryWatches w = new DirectoryWatches(FileSystems.getDefault().newWatchService(), threadName);
        w.thread.start();
        return w;
    }

    /**
     * Starts watching {@code dir}, or its parent until {@code dir} appears; {@code onChange} is
     * called on this object's thread.
     *
     * @param what how logs name the directory ({@code device-plugin dir})
     * @throws IOException when neither {@code dir} nor its parent can be watched, or this is closed
     */
    @Override
    public DirectoryWatch watch(Path dir, String what, Consumer<DirectoryWatch.Change> onChange) throws IOException {
        return watch(dir, what, onChange, false);
    }

    /** As {@link #watch(Path, String, Consumer)}; {@code alone}: the watch's close closes this too (it is the only one). */
    DirectoryWatch watch(Path dir, String what, Consumer<DirectoryWatch.Change> onChange, boolean alone) throws IOException {
        Objects.requireNonNull(onChange, "onChange");
        synchronized (lock) {
            if (closed) throw new IOException("cannot watch " + what + " " + dir + ": the directory watches are closed");
            DirectoryWatch w = new DirectoryWatch(this, dir, what, onChange, alone);
            w.begin();
            watches.add(w);
            return w;
        }
    }

    /** Registers {@code path} with both kinds for every role: registering a directory again replaces its kinds, and keys are shared. */
    WatchKey register(Path path) throws IOException {
        return path.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
    }

    /** Cancels {@code key} unless a watch other than {@code by} still holds it; under the lock. */
    void release(WatchKey key, DirectoryWatch by) {
        for (DirectoryWatch w : watches) {
            if (w != by && w.holds(key)) return;
        }
        key.cancel();
    }

    /** Ends {@code w}: its keys are released and it is never called again. */
    void remove(DirectoryWatch w) {
        synchronized (lock) {
            if (watches.remove(w)) w.releaseAll();
        }
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                synchronized (lock) {
                    List<WatchEvent<?>> events = key.pollEvents();
                    // false once the directory is gone (or the key cancelled): the watches holding it look for it again
                    boolean valid = key.reset();
                    for (DirectoryWatch w : List.copyOf(watches)) w.handle(key, events, valid);
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // close() ends the watches
        }
    }

    /** Ends every watch and the thread. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            watches.clear();
        }
        try {
            service.close();
        } catch (IOException e) {
            log.debug("closing the directory watches: {}", e.toString());
        }
        if (Thread.currentThread() == thread) return;
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
