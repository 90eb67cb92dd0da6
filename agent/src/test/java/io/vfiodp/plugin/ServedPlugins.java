package io.vfiodp.plugin;

import io.vfiodp.node.NodeLoop;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.triggers.DirectoryWatcher;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The device plugins alone, as the tests drive them: the runtime, handed every pass of a node
 * loop over {@code source} (no DRA driver, no hand-over) that rescans every {@code rescanEvery}.
 */
public final class ServedPlugins implements AutoCloseable {

    private final NodeLoop node;
    private final PluginRuntime runtime;

    private ServedPlugins(NodeLoop node, PluginRuntime runtime) {
        this.node = node;
        this.runtime = runtime;
    }

    public static ServedPlugins start(PluginSettings settings, Duration rescanEvery, NodeStateSource source) throws IOException {
        return start(settings, rescanEvery, source, PluginListener.NONE);
    }

    public static ServedPlugins start(PluginSettings settings, Duration rescanEvery, NodeStateSource source, PluginListener listener)
            throws IOException {
        PluginRuntime.Starting plugins = PluginRuntime.begin(settings);
        try {
            NodeLoop node = NodeLoop.start(source, () -> List.of(plugins.serve(listener,
                    DirectoryWatcher.ownThread("vfio-dp-dir-watch"))), rescanEvery);
            return new ServedPlugins(node, plugins.runtime());
        } catch (IOException | RuntimeException e) {
            plugins.close();
            throw e;
        }
    }

    public NodeLoop node() {
        return node;
    }

    public PluginRuntime plugins() {
        return runtime;
    }

    public ReconcileLoop loop() {
        return runtime.loop();
    }

    public void rescanNow() {
        node.rescanNow();
    }

    public void keepDepartedFor(Duration kept) {
        node.keepDepartedFor(kept);
    }

    public void onPassThread(Runnable task) {
        node.onPassThread(task);
    }

    /** The node loop first, as serve closes them. */
    @Override
    public void close() {
        node.close();
        runtime.close();
    }
}
