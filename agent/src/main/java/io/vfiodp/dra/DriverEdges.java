package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.kubelet.DriverSockets;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the driver's actions act on: its servers, the health streams and the ResourceSlices. Each does what it is told and says how it went, as the event
 * the step takes next; none decides anything. Used on the driver's thread only; the publisher,
 * which has a thread of its own, is closed by its owner.
 */
final class DriverEdges implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final DriverSockets sockets;
    private final HealthService health;
    private final SlicePublisher slices;

    DriverEdges(DriverSockets sockets, HealthService health, SlicePublisher slices) {
        this.sockets = sockets;
        this.health = health;
        this.slices = slices;
    }

    /** The running servers whose socket file was removed or replaced. */
    Set<DriverSocket> gone() {
        return sockets.gone();
    }

    DriverEvent start(StartServer s) {
        Optional<String> problem = sockets.start(s.socket(), s.generation());
        if (problem.isEmpty()) return new DriverEvent.ServerStarted(s.socket(), s.generation());
        // The step warns once per problem; this line is for following every retry.
        log.debug("DRA: {} did not start on {}: {}", s.socket().what(), sockets.path(s.socket()), problem.get());
        return new DriverEvent.ServerFailed(s.socket(), s.generation(), problem.get());
    }

    void stop(long generation) {
        sockets.stop(generation);
    }

    void sendHealth(NodeWatchResourcesResponse list) {
        health.publish(list);
    }

    /** Starts the sync on the publisher's thread; {@code done} gets its outcome there. */
    void sync(SyncSlices s, Consumer<DriverEvent> done) {
        slices.sync(s.layout(), s.generation(), s.nodeUid(), outcome -> done.accept(new DriverEvent.SlicesSynced(outcome)));
    }

    /** Starts the dry run on the publisher's thread; {@code done} gets its outcome there. */
    void probe(ProbeTaints p, Consumer<DriverEvent> done) {
        slices.probeTaints(p.taint(), probe -> done.accept(new DriverEvent.TaintsProbed(probe)));
    }

    /** Stops whatever server still runs. */
    @Override
    public void close() {
        sockets.close();
    }
}
