package io.vfiodp.triggers;

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
 * Watches {@code <dev-root>/vfio} as a directory: the kernel creates {@code /dev/vfio/<group>}
 * when a group's last member binds to a VFIO driver and removes it when one unbinds, so a node
 * appearing or vanishing is the fastest sign that a device's health changed. Watching single
 * files would miss groups that appear later. When {@code vfio} does not exist yet (vfio module
 * not loaded), the parent is watched until it appears.
 */
public final class VfioDirWatch implements AutoCloseable {

    static final String THREAD_NAME = "vfio-dp-vfio-watch";
    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.health");

    private final Path devRoot;
    private final Path vfioDir;
    private final Runnable onChange;
    private final WatchService watch;
    private final Thread thread;

    private VfioDirWatch(Path devRoot, Runnable onChange, WatchService watch) {
        this.devRoot = devRoot;
        this.vfioDir = devRoot.resolve("vfio");
        this.onChange = onChange;
        this.watch = watch;
        this.thread = new Thread(this::run, THREAD_NAME);
        this.thread.setDaemon(true);
    }

    /** Starts watching; {@code onChange} runs on the watch thread after every batch of events and must not block. */
    public static VfioDirWatch start(Path devRoot, Runnable onChange) throws IOException {
        if (!Files.isDirectory(devRoot)) throw new IOException("dev root " + devRoot + " is not a directory");
        WatchService watch = devRoot.getFileSystem().newWatchService();
        VfioDirWatch w = new VfioDirWatch(devRoot, onChange, watch);
        try {
            devRoot.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
            w.registerVfioDir();
        } catch (IOException e) {
            watch.close();
            throw new IOException("cannot watch " + devRoot + ": " + e.getMessage(), e);
        }
        w.thread.start();
        return w;
    }

    private boolean registerVfioDir() throws IOException {
        if (!Files.isDirectory(vfioDir)) return false;
        vfioDir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        return true;
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean relevant = false;
                boolean fromRoot = key.watchable().equals(devRoot);
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        relevant = true;
                    } else if (!fromRoot) {
                        relevant = true;
                    } else if (event.context() instanceof Path p && p.toString().equals("vfio")) {
                        relevant = true;
                        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) watchNewVfioDir();
                    }
                }
                if (relevant) onChange.run();
                if (!key.reset() && fromRoot) {
                    log.warn("{} is no longer watchable; /dev/vfio changes show at the next periodic rescan only", devRoot);
                    return;
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // close() ends the watch
        }
    }

    private void watchNewVfioDir() {
        try {
            if (registerVfioDir()) log.info("{} appeared; watching its group nodes", vfioDir);
        } catch (IOException e) {
            log.warn("cannot watch {}: {}; its changes show at the next periodic rescan only", vfioDir, e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the /dev/vfio watch: {}", e.toString());
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
