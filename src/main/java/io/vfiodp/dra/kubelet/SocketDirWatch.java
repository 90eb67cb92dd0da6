package io.vfiodp.dra.kubelet;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the directories our sockets live in and calls {@code onChange} whenever a socket appears
 * or disappears there, so a deleted socket is re-created at once rather than at the next periodic
 * check. A directory that is removed is waited for through its parent, and watched again when it is
 * back (the same guarantee the device-plugin side's {@code PluginDirWatch} gives).
 */
public final class SocketDirWatch implements AutoCloseable {

    public static final String THREAD_NAME = "vfio-dra-dir-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final WatchService watch;
    private final Runnable onChange;
    private final Thread thread;
    // Confined to the watch thread once it runs.
    private final Map<WatchKey, Path> dirKeys = new HashMap<>();
    private final Map<WatchKey, Path> parentKeys = new HashMap<>();
    private final Set<Path> missing = new LinkedHashSet<>();

    private SocketDirWatch(WatchService watch, Runnable onChange) {
        this.watch = watch;
        this.onChange = onChange;
        this.thread = new Thread(this::run, THREAD_NAME);
        this.thread.setDaemon(true);
    }

    /** Watches {@code dirs} (each, or its parent while it does not exist). */
    public static SocketDirWatch start(List<Path> dirs, Runnable onChange) throws IOException {
        WatchService ws = dirs.getFirst().getFileSystem().newWatchService();
        SocketDirWatch w = new SocketDirWatch(ws, onChange);
        try {
            for (Path d : new LinkedHashSet<>(dirs)) w.watchOrWait(d.toAbsolutePath());
        } catch (IOException e) {
            ws.close();
            throw e;
        }
        w.thread.start();
        return w;
    }

    private void watchOrWait(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try {
                dirKeys.put(dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE), dir);
                return;
            } catch (IOException e) {
                if (Files.isDirectory(dir)) throw new IOException("cannot watch " + dir + ": " + e.getMessage(), e);
            }
        }
        missing.add(dir);
        Path parent = dir.getParent();
        if (parent != null && Files.isDirectory(parent)) {
            parentKeys.put(parent.register(watch, StandardWatchEventKinds.ENTRY_CREATE), parent);
        } else {
            log.warn("DRA: neither {} nor its parent exists; relying on the periodic check", dir);
        }
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean changed = false;
                for (WatchEvent<?> event : key.pollEvents()) {
                    changed |= event.kind() == StandardWatchEventKinds.OVERFLOW
                            || (event.context() instanceof Path p && (p.toString().endsWith(".sock") || parentKeys.containsKey(key)));
                }
                if (parentKeys.containsKey(key)) {
                    for (Path dir : List.copyOf(missing)) {
                        if (Files.isDirectory(dir)) {
                            missing.remove(dir);
                            try {
                                watchOrWait(dir);
                                log.info("DRA: {} is back; watching it again", dir);
                            } catch (IOException e) {
                                log.warn("DRA: {} is back but cannot be watched ({}); relying on the periodic check", dir, e.getMessage());
                            }
                        }
                    }
                    Path parent = parentKeys.get(key);
                    if (missing.stream().noneMatch(d -> parent.equals(d.getParent()))) {
                        parentKeys.remove(key);
                        key.cancel();
                        if (changed) onChange.run();
                        continue;
                    }
                }
                if (!key.reset()) {
                    Path dir = dirKeys.remove(key);
                    parentKeys.remove(key);
                    if (dir != null) {
                        log.warn("DRA: {} was removed; waiting for it to come back", dir);
                        try {
                            watchOrWait(dir);
                        } catch (IOException e) {
                            log.warn("DRA: cannot watch {} ({}); relying on the periodic check", dir, e.getMessage());
                        }
                        changed = true;
                    }
                }
                if (changed) onChange.run();
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // close() ends the watch
        }
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the DRA dir watch: {}", e.toString());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
