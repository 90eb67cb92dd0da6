package io.vfiodp.plugin;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
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
 * {@code kubelet.sock} is how a kubelet restart shows.
 */
final class PluginDirWatch implements AutoCloseable {

    static final String THREAD_NAME = "vfio-dp-dir-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");

    private final WatchService watch;
    private final Thread thread;

    private PluginDirWatch(WatchService watch, Thread thread) {
        this.watch = watch;
        this.thread = thread;
    }

    /**
     * @param onChange        a socket appeared or disappeared
     * @param onKubeletSocket {@code kubelet.sock} was created: a kubelet (re)started
     */
    static PluginDirWatch start(Path dir, Runnable onChange, Runnable onKubeletSocket) throws IOException {
        WatchService watch = dir.getFileSystem().newWatchService();
        try {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
            watch.close();
            throw new IOException("cannot watch device-plugin dir " + dir + ": " + e.getMessage(), e);
        }
        Thread t = new Thread(() -> run(watch, onChange, onKubeletSocket), THREAD_NAME);
        t.setDaemon(true);
        t.start();
        return new PluginDirWatch(watch, t);
    }

    private static void run(WatchService watch, Runnable onChange, Runnable onKubeletSocket) {
        try {
            while (true) {
                WatchKey key = watch.take();
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
                    log.warn("device-plugin dir is no longer watchable; relying on the periodic check");
                    return;
                }
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
            log.debug("closing the dir watch: {}", e.toString());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
