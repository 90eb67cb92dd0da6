package io.vfiodp.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.vfiodp.dra.DriverAction.AnswerPrepare;
import io.vfiodp.dra.DriverAction.AnswerUnprepare;
import io.vfiodp.dra.DriverAction.Log;
import io.vfiodp.dra.DriverAction.NotifyHealthChanged;
import io.vfiodp.dra.DriverAction.RemoveFiles;
import io.vfiodp.dra.DriverAction.SaveCheckpoint;
import io.vfiodp.dra.DriverAction.SendHealth;
import io.vfiodp.dra.DriverAction.StartServer;
import io.vfiodp.dra.DriverAction.StopServer;
import io.vfiodp.dra.DriverAction.ProbeTaints;
import io.vfiodp.dra.DriverAction.SyncSlices;
import io.vfiodp.dra.DriverAction.WakeAt;
import io.vfiodp.dra.DriverAction.WriteFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.kubelet.DriverSocket;
import io.vfiodp.dra.slices.SliceLayout;
import io.vfiodp.dra.slices.SlicePublisher;
import io.vfiodp.dra.slices.SlicePublisher.Outcome;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.drahealth.v1alpha1.DeviceHealth;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

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
        this(new TreeMap<>());
    }

    /** A driver whose checkpoint recorded {@code claims}. */
    DriverScript(SortedMap<String, PreparedClaim> claims) {
        state = DriverState.initial(claims, ORIGIN);
    }

    /** A driver whose checkpoint was lost ({@code reason}), still saying {@code claims}. */
    static DriverScript lost(String reason, SortedMap<String, PreparedClaim> claims) {
        DriverScript script = new DriverScript();
        script.state = DriverState.initial(claims, Optional.of(LostClaims.at(reason)), ORIGIN);
        return script;
    }

    /** Feeds {@code at} and returns its actions, rendered. */
    List<String> feed(At at) {
        var r = step.next(state, at.events(), new Now(ORIGIN + Duration.ofMillis(at.ms()).toNanos(), WALL.plusMillis(at.ms())));
        state = r.state();
        return r.actions().stream().map(DriverScript::render).toList();
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
        return new DriverEvent.TargetChanged(target);
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

    static DriverEvent prepare(long call, ClaimRequest... requests) {
        return new DriverEvent.PrepareRequested(call, List.of(requests));
    }

    static DriverEvent unprepare(long call, ClaimRef... refs) {
        return new DriverEvent.UnprepareRequested(call, List.of(refs));
    }

    static DriverEvent filesWritten(long call, String uid) {
        return new DriverEvent.FilesWritten(call, uid, Optional.empty());
    }

    static DriverEvent filesNotWritten(long call, String uid, String problem) {
        return new DriverEvent.FilesWritten(call, uid, Optional.of(problem));
    }

    static DriverEvent filesRemoved(long call, ClaimRef claim) {
        return new DriverEvent.FilesRemoved(call, claim, false, Optional.empty());
    }

    static DriverEvent filesNotRemoved(long call, ClaimRef claim, boolean undo, String problem) {
        return new DriverEvent.FilesRemoved(call, claim, undo, Optional.of(problem));
    }

    static DriverEvent recorded(long call) {
        return new DriverEvent.CheckpointSaved(call, Optional.empty());
    }

    static DriverEvent notRecorded(long call, String problem) {
        return new DriverEvent.CheckpointSaved(call, Optional.of(problem));
    }

    /**
     * What the kubelet still has prepared, read while the checkpoint is lost: claim {@code name}
     * (UID {@code uid}) of this node's pool on {@code devices}, as PodResources lists it and the
     * API allocates it; none without a name.
     */
    static DriverEvent kubeletHas(String name, String uid, String... devices) {
        List<HeldDevice> held = Arrays.stream(devices).<HeldDevice>map(d -> new HeldDevice.ByClaim(Claims.NAMESPACE + "/pod-" + name, "compute",
                Claims.NAMESPACE + "/" + name, DraNodes.DRIVER, DraNodes.NODE, d)).toList();
        return new DriverEvent.KubeletClaimsRead(new PodResourcesReading.Listed(held), List.of(fetched(name, uid, devices)));
    }

    /** The kubelet has no claim of this driver prepared, read while the checkpoint is lost. */
    static DriverEvent kubeletHasNone() {
        return new DriverEvent.KubeletClaimsRead(new PodResourcesReading.Listed(List.of()), List.of());
    }

    static DriverEvent close() {
        return new DriverEvent.Close();
    }

    /** A claim of this node's pool allocating {@code devices} (request {@code gpu}), as the API holds it. */
    static ClaimRequest fetched(String name, String uid, String... devices) {
        DeviceRequestAllocationResult[] results = Arrays.stream(devices).map(Claims::ours).toArray(DeviceRequestAllocationResult[]::new);
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.of(new ClaimSource.Found(Claims.allocated(name, uid, results))));
    }

    /** The scheduler's claim of a pod's extended resources, allocating {@code devices} to request {@code container-0-request-0}. */
    static ClaimRequest fetchedSpecial(String name, String uid, String... devices) {
        DeviceRequestAllocationResult[] results = Arrays.stream(devices).map(d -> Claims.result("container-0-request-0", DraNodes.DRIVER,
                DraNodes.NODE, d)).toArray(DeviceRequestAllocationResult[]::new);
        var claim = Claims.allocated(name, uid, results);
        claim.getMetadata().setAnnotations(Map.of("resource.kubernetes.io/extended-resource-claim", "true"));
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.of(new ClaimSource.Found(claim)));
    }

    /** A claim prepared already: the API was not asked. */
    static ClaimRequest known(String name, String uid) {
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.empty());
    }

    static ClaimRef ref(String name, String uid) {
        return new ClaimRef(Claims.NAMESPACE, uid, name);
    }

    static String render(DriverAction action) {
        return switch (action) {
            case StartServer s -> "start " + name(s.socket()) + " gen " + s.generation();
            case StopServer s -> "stop " + name(s.socket()) + " gen " + s.generation();
            case WakeAt w -> "wake at " + Duration.ofNanos(w.nanos() - ORIGIN).toMillis() + " ms";
            case SendHealth h -> "send health " + h.list().getDevicesList().stream().map(DriverScript::health).toList();
            case SyncSlices s -> "sync slices " + s.layout().stream().map(slice -> slice.stream().map(DriverScript::entry).toList()).toList()
                    + " above gen " + s.generation() + s.nodeUid().map(uid -> " owned by " + uid).orElse("");
            case ProbeTaints p -> "probe taints " + p.taint().key() + "=" + p.taint().value() + ":" + p.taint().effect();
            case NotifyHealthChanged h -> "tell health " + h.resource().value() + " " + h.deviceId() + " " + h.from().wireValue() + " -> "
                    + h.to().wireValue();
            case WriteFiles w -> "write files of " + w.claim().uid() + " " + devices(w.claim()) + " for call " + w.call();
            case RemoveFiles r -> "remove files of " + r.claim().namespace() + "/" + r.claim().name() + " (UID " + r.claim().uid() + ") for call "
                    + r.call() + (r.undo() ? ", undoing" : "");
            case SaveCheckpoint s -> "record " + s.claims().stream().map(PreparedClaim::uid).toList() + " for call " + s.call();
            case AnswerPrepare a -> "answer prepare " + a.call() + ": " + a.answers().entrySet().stream().map(e -> e.getKey() + " " + switch (e.getValue()) {
                case PrepareAnswer.Prepared p -> "prepared " + devices(p.claim());
                case PrepareAnswer.Failed f -> "failed: " + f.reason();
            }).collect(Collectors.joining("; "));
            case AnswerUnprepare a -> "answer unprepare " + a.call() + ": " + a.errors().entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue().map(error -> "failed: " + error).orElse("done")).collect(Collectors.joining("; "));
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

    private static String devices(PreparedClaim c) {
        String devices = c.devices().stream().map(d -> d.device() + " " + d.request() + " " + d.vfioPaths()).toList().toString();
        if (!c.forExtendedResources()) return devices;
        return devices + " env " + c.extended().stream().map(r -> r.request() + " " + r.env() + " " + r.deviceNodes()).toList();
    }

    /** The claims a step left prepared, by UID, with their devices' names. */
    static Map<String, List<String>> prepared(DriverState state) {
        Map<String, List<String>> out = new TreeMap<>();
        state.claims().forEach((uid, c) -> out.put(uid, c.devices().stream().map(PreparedDevice::device).toList()));
        return out;
    }
}
