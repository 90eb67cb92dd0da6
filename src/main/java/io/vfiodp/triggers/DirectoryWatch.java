package io.vfiodp.triggers;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a directory for entries created and deleted, on a thread of its own. A directory that
 * does not exist yet, or is removed while watched (a node reset, a kubelet reinstall, the vfio
 * module loaded later), is waited for through its parent and watched again when it is back:
 * otherwise every later change would wait for the periodic check. Directories, not single files,
 * are watched because the kernel and the kubelet create entries there that did not exist before.
 */
public final class DirectoryWatch implements AutoCloseable {

    /** What changed; callbacks run on the watch thread and must only enqueue. */
    public sealed interface Change {
        /** Entries created or deleted in the directory; {@code overflow} when events were lost (look at everything). */
        record Entries(Set<String> created, Set<String> deleted, boolean overflow) implements Change {
            public Entries {
                created = Set.copyOf(created);
                deleted = Set.copyOf(deleted);
            }

            public boolean any(java.util.function.Predicate<String> name) {
                return overflow || created.stream().anyMatch(name) || deleted.stream().anyMatch(name);
            }
        }

        /** The directory exists (again) and is watched from now on; anything in it may have changed meanwhile. */
        record Appeared() implements Change {}

        /** The directory was removed; its parent is watched until it comes back. */
        record Vanished() implements Change {}
    }

    private static final Logger log = LoggerFactory.getLogger(DirectoryWatch.class);

    private final Path dir;
    private final String what;
    private final WatchService watch;
    private final Consumer<Change> onChange;
    private final Thread thread;
    // Confined to the watch thread once it runs.
    private WatchKey dirKey;
    private WatchKey parentKey;

    private DirectoryWatch(Path dir, String what, WatchService watch, Consumer<Change> onChange, String threadName) {
        this.dir = dir.toAbsolutePath();
        this.what = what;
        this.watch = watch;
        this.onChange = onChange;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching {@code dir}, or its parent until {@code dir} appears.
     *
     * @param what how logs name the directory ({@code device-plugin dir})
     * @throws IOException when neither {@code dir} nor its parent can be watched
     */
    public static DirectoryWatch start(Path dir, String what, String threadName, Consumer<Change> onChange) throws IOException {
        Objects.requireNonNull(onChange, "onChange");
        WatchService watch = dir.getFileSystem().newWatchService();
        DirectoryWatch w = new DirectoryWatch(dir, what, watch, onChange, threadName);
        try {
            w.dirKey = w.register(w.dir);
        } catch (IOException notThere) {
            try {
                w.parentKey = w.registerParent();
                // it may have been created between the two calls
                if (Files.isDirectory(w.dir)) w.dirKey = w.register(w.dir);
            } catch (IOException e) {
                watch.close();
                throw new IOException("cannot watch " + what + " " + dir + " or its parent: " + e.getMessage(), e);
            }
        }
        w.thread.start();
        return w;
    }

    private WatchKey register(Path path) throws IOException {
        return path.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
    }

    private WatchKey registerParent() throws IOException {
        return dir.getParent().register(watch, StandardWatchEventKinds.ENTRY_CREATE);
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watch.take();
                if (key == dirKey) {
                    entries(key);
                } else if (key == parentKey) {
                    parent(key);
                } else {
                    // events queued on a key cancelled since: nothing to act on
                    key.pollEvents();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // close() ends the watch
        }
    }

    private void entries(WatchKey key) {
        Set<String> created = new LinkedHashSet<>();
        Set<String> deleted = new LinkedHashSet<>();
        boolean overflow = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) overflow = true;
            else if (event.context() instanceof Path p) {
                (event.kind() == StandardWatchEventKinds.ENTRY_CREATE ? created : deleted).add(p.toString());
            }
        }
        if (overflow || !created.isEmpty() || !deleted.isEmpty()) onChange.accept(new Change.Entries(created, deleted, overflow));
        if (!key.reset()) {
            dirKey = null;
            onChange.accept(new Change.Vanished());
            try {
                parentKey = registerParent();
                log.warn("{} {} was removed; waiting for it to come back", what, dir);
            } catch (IOException e) {
                log.warn("{} {} was removed and {} cannot be watched ({}); relying on the periodic check", what, dir, dir.getParent(), e.toString());
                return;
            }
            if (Files.isDirectory(dir)) watchAgain();
        }
    }

    private void parent(WatchKey key) {
        boolean back = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            back |= event.kind() == StandardWatchEventKinds.OVERFLOW || (event.context() instanceof Path p && p.equals(dir.getFileName()));
        }
        if (back) watchAgain();
        if (parentKey == key && !key.reset()) {
            parentKey = null;
            log.warn("{} is gone too; {} {} changes show at the periodic check only", dir.getParent(), what, dir);
        }
    }

    private void watchAgain() {
        try {
            dirKey = register(dir);
        } catch (IOException e) {
            // not (fully) there yet: the parent's next event tries again
            return;
        }
        parentKey.cancel();
        parentKey = null;
        log.info("{} {} is there; watching it", what, dir);
        onChange.accept(new Change.Appeared());
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the watch of {}: {}", dir, e.toString());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
