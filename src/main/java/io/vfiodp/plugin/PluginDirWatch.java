package io.vfiodp.plugin;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the device-plugin directory and asks the reconcile loop to look again whenever a
 * socket appears or disappears there: the kubelet deleting our sockets and re-creating
 * {@code kubelet.sock} is how a kubelet restart shows. When the directory itself is removed (a
 * node reset, a kubelet reinstall), its parent is watched until it is back, and then the
 * directory again: otherwise every later kubelet restart would wait for the periodic check.
 */
final class PluginDirWatch implements AutoCloseable {

    static final String THREAD_NAME = "vfio-dp-dir-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final Path dir;
    private final WatchService watch;
    private final Runnable onChange;
    private final Runnable onKubeletSocket;
    private final Thread thread;
    // Confined to the watch thread once it runs.
    private WatchKey dirKey;
    private WatchKey parentKey;

    private PluginDirWatch(Path dir, WatchKey dirKey, WatchService watch, Runnable onChange, Runnable onKubeletSocket) {
        this.dir = dir;
        this.dirKey = dirKey;
        this.watch = watch;
        this.onChange = onChange;
        this.onKubeletSocket = onKubeletSocket;
        this.thread = new Thread(this::run, THREAD_NAME);
        this.thread.setDaemon(true);
    }

    /**
     * @param onChange        a socket appeared or disappeared
     * @param onKubeletSocket {@code kubelet.sock} was created: a kubelet (re)started
     */
    static PluginDirWatch start(Path dir, Runnable onChange, Runnable onKubeletSocket) throws IOException {
        WatchService watch = dir.getFileSystem().newWatchService();
        WatchKey key;
        try {
            key = watchDir(dir, watch);
        } catch (IOException e) {
            watch.close();
            throw new IOException("cannot watch device-plugin dir " + dir + ": " + e.getMessage(), e);
        }
        PluginDirWatch w = new PluginDirWatch(dir, key, watch, onChange, onKubeletSocket);
        w.thread.start();
        return w;
    }

    private static WatchKey watchDir(Path dir, WatchService watch) throws IOException {
        return dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watch.take();
                if (key == parentKey) {
                    boolean back = false;
                    for (WatchEvent<?> event : key.pollEvents()) {
                        back |= event.kind() == StandardWatchEventKinds.OVERFLOW
                                || (event.context() instanceof Path p && p.equals(dir.getFileName()));
                    }
                    if (back) watchAgain();
                    if (parentKey == key && !key.reset()) {
                        parentKey = null;
                        log.warn("{} is gone too; relying on the periodic check", dir.getParent());
                    }
                    continue;
                }
                if (key != dirKey) {
                    // Events queued on a key cancelled since (the parent's): nothing to act on.
                    key.pollEvents();
                    continue;
                }
                boolean relevant = false;
                boolean kubeletCreated = false;
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW
                            || (event.context() instanceof Path p && p.toString().endsWith(".sock"))) {
                        relevant = true;
                    }
                    if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE && event.context() instanceof Path p
                            && p.toString().equals(ReconcileLoop.KUBELET_SOCKET)) {
                        kubeletCreated = true;
                    }
                }
                if (kubeletCreated) onKubeletSocket.run();
                else if (relevant) onChange.run();
                if (!key.reset()) {
                    dirKey = null;
                    onChange.run();
                    watchParent();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // close() ends the watch
        }
    }

    private void watchParent() {
        Path parent = dir.toAbsolutePath().getParent();
        try {
            parentKey = parent.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            log.warn("device-plugin dir {} was removed; waiting for it to come back", dir);
        } catch (IOException e) {
            log.warn("device-plugin dir {} was removed and {} cannot be watched ({}); relying on the periodic check", dir, parent, e.toString());
            return;
        }
        // It may have come back before the parent was watched.
        if (Files.isDirectory(dir)) watchAgain();
    }

    private void watchAgain() {
        try {
            dirKey = watchDir(dir, watch);
        } catch (IOException e) {
            // Not (fully) there yet: the parent's next event tries again.
            return;
        }
        parentKey.cancel();
        parentKey = null;
        log.info("device-plugin dir {} is back; watching it again", dir);
        if (Files.exists(dir.resolve(ReconcileLoop.KUBELET_SOCKET))) onKubeletSocket.run();
        else onChange.run();
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the dir watch: {}", e.toString());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
