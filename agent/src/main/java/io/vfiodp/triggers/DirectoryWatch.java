package io.vfiodp.triggers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a directory for entries created and deleted, on the thread of its {@link DirectoryWatches}
 * (or on a thread of its own: {@link #start}). A directory that does not exist yet, or is removed
 * while watched (a node reset, a kubelet reinstall, the vfio module loaded later), is waited for
 * through its parent and watched again when it is back: otherwise every later change would wait
 * for the periodic check. Directories, not single files, are watched because the kernel and the
 * kubelet create entries there that did not exist before.
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

    private final DirectoryWatches owner;
    private final Path dir;
    private final String what;
    private final Consumer<Change> onChange;
    private final boolean alone;
    // Guarded by the owner's lock.
    private WatchKey dirKey;
    private WatchKey parentKey;

    DirectoryWatch(DirectoryWatches owner, Path dir, String what, Consumer<Change> onChange, boolean alone) {
        this.owner = owner;
        this.dir = dir.toAbsolutePath();
        this.what = what;
        this.onChange = onChange;
        this.alone = alone;
    }

    /**
     * Starts watching {@code dir}, or its parent until {@code dir} appears, on a WatchService and a
     * thread of its own that {@link #close()} ends: for a part started alone. Serve watches all its
     * directories on one {@link DirectoryWatches}.
     *
     * @param what how logs name the directory ({@code device-plugin dir})
     * @throws IOException when neither {@code dir} nor its parent can be watched
     */
    public static DirectoryWatch start(Path dir, String what, String threadName, Consumer<Change> onChange) throws IOException {
        Objects.requireNonNull(onChange, "onChange");
        DirectoryWatches own = DirectoryWatches.start(threadName);
        try {
            return own.watch(dir, what, onChange, true);
        } catch (IOException | RuntimeException e) {
            own.close();
            throw e;
        }
    }

    /** Registers the directory, or its parent while it is not there; under the owner's lock. */
    void begin() throws IOException {
        try {
            dirKey = owner.register(dir);
        } catch (IOException notThere) {
            try {
                parentKey = owner.register(dir.getParent());
            } catch (IOException e) {
                throw new IOException("cannot watch " + what + " " + dir + " or its parent: " + e.getMessage(), e);
            }
            // it may have been created between the two calls
            if (Files.isDirectory(dir)) watchAgain(false);
        }
    }

    boolean holds(WatchKey key) {
        return key == dirKey || key == parentKey;
    }

    /** What {@code key} reported, if it is one of this watch's; under the owner's lock, on its thread. */
    void handle(WatchKey key, List<WatchEvent<?>> events, boolean valid) {
        if (key == dirKey) {
            entries(events, valid);
        } else if (key == parentKey) {
            parent(key, events, valid);
        }
    }

    private void entries(List<WatchEvent<?>> events, boolean valid) {
        Set<String> created = new LinkedHashSet<>();
        Set<String> deleted = new LinkedHashSet<>();
        boolean overflow = false;
        for (WatchEvent<?> event : events) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) overflow = true;
            else if (event.context() instanceof Path p) {
                (event.kind() == StandardWatchEventKinds.ENTRY_CREATE ? created : deleted).add(p.toString());
            }
        }
        if (overflow || !created.isEmpty() || !deleted.isEmpty()) report(new Change.Entries(created, deleted, overflow));
        if (!valid) {
            dirKey = null;
            report(new Change.Vanished());
            try {
                parentKey = owner.register(dir.getParent());
                log.warn("{} {} was removed; waiting for it to come back", what, dir);
            } catch (IOException e) {
                log.warn("{} {} was removed and {} cannot be watched ({}); relying on the periodic check", what, dir, dir.getParent(), e.toString());
                return;
            }
            if (Files.isDirectory(dir)) watchAgain(true);
        }
    }

    private void parent(WatchKey key, List<WatchEvent<?>> events, boolean valid) {
        boolean back = false;
        for (WatchEvent<?> event : events) {
            // the parent's key may be another watch's directory key too, which asks for deletions as well
            back |= event.kind() == StandardWatchEventKinds.OVERFLOW
                    || (event.kind() == StandardWatchEventKinds.ENTRY_CREATE && event.context() instanceof Path p && p.equals(dir.getFileName()));
        }
        if (back) watchAgain(true);
        if (parentKey == key && !valid) {
            parentKey = null;
            log.warn("{} is gone too; {} {} changes show at the periodic check only", dir.getParent(), what, dir);
        }
    }

    private void watchAgain(boolean tell) {
        try {
            dirKey = owner.register(dir);
        } catch (IOException e) {
            // not (fully) there yet: the parent's next event tries again
            return;
        }
        owner.release(parentKey, this);
        parentKey = null;
        if (!tell) return;
        log.info("{} {} is there; watching it", what, dir);
        report(new Change.Appeared());
    }

    private void report(Change change) {
        try {
            onChange.accept(change);
        } catch (RuntimeException e) {
            // the thread serves every watch: one failing callback must not end the others
            log.warn("{} {}: handling {} failed: {}", what, dir, change, e.toString());
        }
    }

    /** Releases this watch's keys; under the owner's lock, once it is off the owner's list. */
    void releaseAll() {
        if (dirKey != null) owner.release(dirKey, this);
        if (parentKey != null) owner.release(parentKey, this);
        dirKey = null;
        parentKey = null;
    }

    /** Ends this watch: its callback is not called again once this returns (and a watch started alone ends its thread). */
    @Override
    public void close() {
        owner.remove(this);
        if (alone) owner.close();
    }
}
