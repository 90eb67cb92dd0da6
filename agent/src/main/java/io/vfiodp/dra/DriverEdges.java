package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.kubelet.DriverSockets;
import io.vfiodp.dra.kubelet.HealthService;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the driver's actions act on: its servers, the health streams, the ResourceSlices, the
 * claims' files and the checkpoint. Each does what it is told and says how it went, as the event
 * the step takes next; none decides anything. Used on the driver's thread only; the publisher,
 * which has a thread of its own, is closed by its owner.
 */
final class DriverEdges implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.dra");

    private final DriverSockets sockets;
    private final HealthService health;
    private final SlicePublisher slices;
    private final ClaimFiles files;
    private final Checkpoint checkpoint;

    DriverEdges(DriverSockets sockets, HealthService health, SlicePublisher slices, ClaimFiles files, Checkpoint checkpoint) {
        this.sockets = sockets;
        this.health = health;
        this.slices = slices;
        this.files = files;
        this.checkpoint = checkpoint;
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

    DriverEvent write(WriteFiles w) {
        try {
            files.write(w.claim());
            return new DriverEvent.FilesWritten(w.call(), w.claim().uid(), Optional.empty());
        } catch (IOException e) {
            return new DriverEvent.FilesWritten(w.call(), w.claim().uid(), Optional.of(String.valueOf(e.getMessage())));
        }
    }

    DriverEvent remove(RemoveFiles r) {
        try {
            files.remove(r.claim().uid(), r.claim().namespace(), r.claim().name());
            return new DriverEvent.FilesRemoved(r.call(), r.claim(), r.undo(), Optional.empty());
        } catch (IOException e) {
            return new DriverEvent.FilesRemoved(r.call(), r.claim(), r.undo(), Optional.of(String.valueOf(e.getMessage())));
        }
    }

    DriverEvent save(SaveCheckpoint s) {
        try {
            checkpoint.save(s.claims(), s.incomplete());
            return new DriverEvent.CheckpointSaved(s.call(), Optional.empty());
        } catch (IOException e) {
            return new DriverEvent.CheckpointSaved(s.call(), Optional.of(String.valueOf(e.getMessage())));
        }
    }

    /** Stops whatever server still runs. */
    @Override
    public void close() {
        sockets.close();
    }
}
