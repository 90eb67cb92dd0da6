package io.vfiodp.plugin;

import io.vfiodp.triggers.DirectoryWatch;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a change in the kubelet's device-plugin directory asks of the reconcile loop. The kubelet
 * deletes our sockets and re-creates {@code kubelet.sock} when it restarts: a socket appearing or
 * disappearing makes the loop sweep again, {@code kubelet.sock} created makes it register without
 * waiting out a backoff.
 */
final class PluginDirChanges {

    private PluginDirChanges() {}

    static void apply(DirectoryWatch.Change change, ReconcileLoop loop, Path pluginDir) {
        switch (change) {
            case DirectoryWatch.Change.Entries e when e.created().contains(ReconcileLoop.KUBELET_SOCKET) -> loop.kubeletSocketCreated();
            case DirectoryWatch.Change.Entries e -> {
                if (e.any(name -> name.endsWith(".sock"))) loop.requestSweep();
            }
            case DirectoryWatch.Change.Appeared a -> {
                if (Files.exists(pluginDir.resolve(ReconcileLoop.KUBELET_SOCKET))) loop.kubeletSocketCreated();
                else loop.requestSweep();
            }
            case DirectoryWatch.Change.Vanished v -> loop.requestSweep();
        }
    }
}
