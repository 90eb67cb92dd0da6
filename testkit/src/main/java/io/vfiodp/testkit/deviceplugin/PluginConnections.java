package io.vfiodp.testkit.deviceplugin;

import io.grpc.ManagedChannel;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The kubelet's connection to each registered plugin, by resource: the channel and the ListAndWatch stream it holds open. */
final class PluginConnections {

    private record Connection(ManagedChannel channel, Watch watch) {}

    private final Map<String, Connection> byResource = new HashMap<>();

    /** The connection of a new registration; the one it replaces is closed, as the kubelet does. */
    void put(String resource, ManagedChannel channel, Watch watch) {
        Connection previous;
        synchronized (this) {
            previous = byResource.put(resource, new Connection(channel, watch));
        }
        if (previous != null) previous.channel().shutdownNow();
    }

    synchronized ManagedChannel channel(String resource) {
        return get(resource).channel();
    }

    synchronized Watch watch(String resource) {
        return get(resource).watch();
    }

    synchronized Optional<ListAndWatchResponse> latest(String resource) {
        Connection c = byResource.get(resource);
        return c == null ? Optional.empty() : c.watch().latest();
    }

    private Connection get(String resource) {
        Connection c = byResource.get(resource);
        if (c == null) throw new IllegalStateException(resource + " is not registered");
        return c;
    }

    /** Closes every connection and waits briefly for each: a kubelet that stops drops them all. */
    void dropAll() {
        List<Connection> old;
        synchronized (this) {
            old = List.copyOf(byResource.values());
            byResource.clear();
        }
        for (Connection c : old) c.channel().shutdownNow();
        for (Connection c : old) {
            try {
                c.channel().awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
