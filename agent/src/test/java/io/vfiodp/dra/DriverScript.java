package io.vfiodp.dra;

import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.dra.slices.SlicePublisher.Outcome;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Drives {@link DriverStep} by hand: events at given milliseconds, actions rendered as short lines
 * that tables can spell out. The monotonic time starts 250 ms before {@code long} wraps, so that
 * every due-time comparison is also a test of wrap-safe arithmetic; the wall clock starts at
 * {@link #WALL} and goes with it.
 */
final class DriverScript {

    static final DraSettings SETTINGS = new DraSettings(DraNodes.DRIVER, DraNodes.NODE, Path.of("/registry"),
            Path.of("/plugins").resolve(DraNodes.DRIVER), Path.of("/cdi"), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
            new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1)), io.vfiodp.dra.model.NumaForm.SCALAR);
    static final Instant WALL = Instant.parse("2026-05-04T10:00:00Z");
    private static final long ORIGIN = Long.MAX_VALUE - Duration.ofMillis(250).toNanos();

    /** Events that happen together {@code ms} after the start. */
    record At(long ms, List<DriverEvent> events) {
        @Override
        public String toString() {
            return ms + " ms " + events;
        }
    }

    private final DriverStep step = new DriverStep(SETTINGS);
    private DriverState state;

    DriverScript() {
        state = DriverState.initial(ORIGIN);
    }

    /** Feeds {@code at} and returns its actions, rendered. */
    List<String> feed(At at) {
        var r = step.next(state, at.events(), new Now(ORIGIN + Duration.ofMillis(at.ms()).toNanos(), WALL.plusMillis(at.ms())));
        state = r.state();
        // the wake-up, rendered as the last action, as the step asks for it after all the others
        return Stream.concat(r.actions().stream().map(DriverScript::render),
                r.wakeAt().stream().map(wake -> "wake at " + Duration.ofNanos(wake - ORIGIN).toMillis() + " ms")).toList();
    }

    List<String> feedAll(List<At> events) {
        List<String> out = new ArrayList<>();
        for (At at : events) out.addAll(feed(at));
        return out;
    }

    DriverState state() {
        return state;
    }

    static At at(long ms, DriverEvent... together) {
        return new At(ms, List.of(together));
    }

    static DriverEvent target(TargetState target) {
        return new DriverEvent.TargetChanged(target, DriverView.of(target, SETTINGS.numaForm()));
    }

    /** A sweep that finds every running server's socket but those of {@code gone}. */
    static DriverEvent sweep(DriverSocket... gone) {
        return new DriverEvent.Swept(Set.of(gone));
    }

    static DriverEvent started(DriverSocket socket, long generation) {
        return new DriverEvent.ServerStarted(socket, generation);
    }

    static DriverEvent failed(DriverSocket socket, long generation, String problem) {
        return new DriverEvent.ServerFailed(socket, generation, problem);
    }

    static DriverEvent accepted() {
        return new DriverEvent.RegistrationVerdict(true, "");
    }

    static DriverEvent refused(String error) {
        return new DriverEvent.RegistrationVerdict(false, error);
    }

    static DriverEvent heartbeat() {
        return new DriverEvent.Heartbeat();
    }

    static DriverEvent resync() {
        return new DriverEvent.ResyncSlices();
    }

    static DriverEvent written(long generation, int slices, int devices) {
        return new DriverEvent.SlicesSynced(new Outcome.Synced(generation, slices, devices, true, Optional.of("node-uid")));
    }

    static DriverEvent upToDate(long generation, int slices, int devices) {
        return new DriverEvent.SlicesSynced(new Outcome.Synced(generation, slices, devices, false, Optional.empty()));
    }

    /** A sync that wrote the slices and got them back without the taints they carried. */
    static DriverEvent writtenWithoutTaints(long generation, int slices, int devices) {
        return new DriverEvent.SlicesSynced(new Outcome.Synced(generation, slices, devices, true, Optional.of("node-uid"), true));
    }

    static DriverEvent taintsKept() {
        return new DriverEvent.TaintsProbed(new SlicePublisher.Probe.Kept());
    }

    static DriverEvent taintsDropped() {
        return new DriverEvent.TaintsProbed(new SlicePublisher.Probe.Dropped());
    }

    static DriverEvent probeFailed(String problem) {
        return new DriverEvent.TaintsProbed(new SlicePublisher.Probe.Failed(problem));
    }

    static DriverEvent syncFailed(String problem, long generation) {
        return new DriverEvent.SlicesSynced(new Outcome.Failed(problem, generation, Optional.empty()));
    }

    static DriverEvent close() {
        return new DriverEvent.Close();
    }

    static String render(DriverAction action) {
        return switch (action) {
            case StartServer s -> "start " + name(s.socket()) + " gen " + s.generation();
            case StopServer s -> "stop " + name(s.socket()) + " gen " + s.generation();
            case SendHealth h -> "send health " + h.list().getDevicesList().stream().map(DriverScript::health).toList();
            case SyncSlices s -> "sync slices " + s.layout().stream().map(slice -> slice.stream().map(DriverScript::entry).toList()).toList()
                    + " above gen " + s.generation() + s.nodeUid().map(uid -> " owned by " + uid).orElse("");
            case ProbeTaints p -> "probe taints " + p.taint().key() + "=" + p.taint().value() + ":" + p.taint().effect();
            case NotifyHealthChanged h -> "tell health " + h.resource().value() + " " + h.deviceId() + " " + h.from().wireValue() + " -> "
                    + h.to().wireValue();
            case Log l -> l.level() + " " + l.message();
        };
    }

    /** A device's name, and its taints' values where it has any: {@code pci-0000-b2-00-0 (tainted IOMMU-group-65-dev-vfio-65-missing)}. */
    private static String entry(SliceLayout.Entry e) {
        return e.tainted() ? e.name() + " (tainted " + String.join(",", e.taints().stream().map(t -> t.value()).toList()) + ")" : e.name();
    }

    private static String name(DriverSocket socket) {
        return socket == DriverSocket.SERVICE ? "service" : "registration";
    }

    private static String health(DeviceHealth d) {
        return d.getDevice().getDeviceName() + " " + d.getHealth() + " @" + (d.getLastUpdatedTime() - WALL.getEpochSecond()) + "s"
                + (d.getMessage().isEmpty() ? "" : " (" + d.getMessage() + ")");
    }
}
