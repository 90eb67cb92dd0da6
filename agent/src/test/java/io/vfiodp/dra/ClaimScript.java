package io.vfiodp.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * Drives a {@link ClaimBook} by hand, on the t4-numa node: its files, checkpoint and log are lines
 * that tables can spell out, and fail when told to; each call gives those lines and its answer.
 */
final class ClaimScript implements ClaimBook.Edges {

    static final TargetState NODE = DraNodes.allDra("t4-numa");
    static final Path CHECKPOINT = Path.of("/plugins/vfio-device-plugin.io/checkpoint.json");

    private final List<String> lines = new ArrayList<>();
    private final Map<String, String> writeFails = new HashMap<>();
    private final Map<String, String> removeFails = new HashMap<>();
    private Optional<String> saveFails = Optional.empty();
    final ClaimBook book;

    ClaimScript() {
        this(new TreeMap<>(), Optional.empty());
    }

    /** A book whose checkpoint recorded {@code claims}, or was lost and still said them. */
    ClaimScript(SortedMap<String, PreparedClaim> claims, Optional<LostClaims> lost) {
        book = new ClaimBook(claims, lost, DraNodes.DRIVER, DraNodes.NODE, CHECKPOINT, this);
        offer(NODE);
    }

    /** A book whose checkpoint was lost ({@code reason}), still saying {@code claims}. */
    static ClaimScript lost(String reason, SortedMap<String, PreparedClaim> claims) {
        return new ClaimScript(claims, Optional.of(LostClaims.at(reason)));
    }

    void offer(TargetState node) {
        book.offer(DriverView.of(node, DriverScript.SETTINGS.numaForm()));
    }

    /** Writing claim {@code uid}'s files fails with {@code problem} from now on. */
    ClaimScript writeFails(String uid, String problem) {
        writeFails.put(uid, problem);
        return this;
    }

    /** Removing claim {@code uid}'s files fails with {@code problem} from now on. */
    ClaimScript removeFails(String uid, String problem) {
        removeFails.put(uid, problem);
        return this;
    }

    /** Every save fails with {@code problem} from now on. */
    ClaimScript saveFails(String problem) {
        saveFails = Optional.of(problem);
        return this;
    }

    /** Files and the checkpoint work again. */
    ClaimScript healed() {
        writeFails.clear();
        removeFails.clear();
        saveFails = Optional.empty();
        return this;
    }

    List<String> prepare(ClaimRequest... requests) {
        lines.clear();
        Map<String, PrepareAnswer> answers = book.prepare(List.of(requests));
        lines.add("answer prepare: " + answers.entrySet().stream().map(e -> e.getKey() + " " + switch (e.getValue()) {
            case PrepareAnswer.Prepared p -> "prepared " + devices(p.claim());
            case PrepareAnswer.Failed f -> "failed: " + f.reason();
        }).collect(Collectors.joining("; ")));
        return List.copyOf(lines);
    }

    List<String> unprepare(ClaimRef... refs) {
        lines.clear();
        Map<String, Optional<String>> errors = book.unprepare(List.of(refs));
        lines.add("answer unprepare: " + errors.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue().map(error -> "failed: " + error).orElse("done")).collect(Collectors.joining("; ")));
        return List.copyOf(lines);
    }

    List<String> read(ClaimRecovery.Reading reading) {
        lines.clear();
        book.kubeletRead(reading);
        return List.copyOf(lines);
    }

    @Override
    public void write(PreparedClaim claim) throws IOException {
        lines.add("write files of " + claim.uid() + " " + devices(claim));
        fail(writeFails.get(claim.uid()));
    }

    @Override
    public void remove(ClaimRef claim) throws IOException {
        lines.add("remove files of " + claim.namespace() + "/" + claim.name() + " (UID " + claim.uid() + ")");
        fail(removeFails.get(claim.uid()));
    }

    @Override
    public void save(List<PreparedClaim> claims, Optional<String> incomplete) throws IOException {
        lines.add("record " + claims.stream().map(PreparedClaim::uid).toList());
        fail(saveFails.orElse(null));
    }

    @Override
    public void log(Level level, String message) {
        lines.add(level + " " + message);
    }

    private static void fail(String problem) throws IOException {
        if (problem != null) throw new IOException(problem);
    }

    /** The claims in the book, by UID, with their devices' names. */
    Map<String, List<String>> prepared() {
        Map<String, List<String>> out = new TreeMap<>();
        book.claims().forEach((uid, c) -> out.put(uid, c.devices().stream().map(PreparedDevice::device).toList()));
        return out;
    }

    /**
     * What the kubelet still has prepared, read while the checkpoint is lost: claim {@code name}
     * (UID {@code uid}) of this node's pool on {@code devices}, as PodResources lists it and the
     * API allocates it.
     */
    static ClaimRecovery.Reading kubeletHas(String name, String uid, String... devices) {
        List<HeldDevice> held = Arrays.stream(devices).<HeldDevice>map(d -> new HeldDevice.ByClaim(Claims.NAMESPACE + "/pod-" + name, "compute",
                Claims.NAMESPACE + "/" + name, DraNodes.DRIVER, DraNodes.NODE, d)).toList();
        return new ClaimRecovery.Reading(new PodResourcesReading.Listed(held), List.of(fetched(name, uid, devices)));
    }

    /** The kubelet has no claim of this driver prepared, read while the checkpoint is lost. */
    static ClaimRecovery.Reading kubeletHasNone() {
        return new ClaimRecovery.Reading(new PodResourcesReading.Listed(List.of()), List.of());
    }

    /** A claim of this node's pool allocating {@code devices} (request {@code gpu}), as the API holds it. */
    static ClaimRequest fetched(String name, String uid, String... devices) {
        DeviceRequestAllocationResult[] results = Arrays.stream(devices).map(Claims::ours).toArray(DeviceRequestAllocationResult[]::new);
        var claim = Claims.asRead(Claims.allocated(name, uid, results));
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.of(new ClaimSource.Found(claim)));
    }

    /** The scheduler's claim of a pod's extended resources, allocating {@code devices} to request {@code container-0-request-0}. */
    static ClaimRequest fetchedSpecial(String name, String uid, String... devices) {
        DeviceRequestAllocationResult[] results = Arrays.stream(devices).map(d -> Claims.result("container-0-request-0", DraNodes.DRIVER,
                DraNodes.NODE, d)).toArray(DeviceRequestAllocationResult[]::new);
        var claim = Claims.allocated(name, uid, results);
        claim.getMetadata().setAnnotations(Map.of("resource.kubernetes.io/extended-resource-claim", "true"));
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.of(new ClaimSource.Found(Claims.asRead(claim))));
    }

    /** A claim prepared already: the API was not asked. */
    static ClaimRequest known(String name, String uid) {
        return new ClaimRequest(Claims.NAMESPACE, uid, name, Optional.empty());
    }

    static ClaimRef ref(String name, String uid) {
        return new ClaimRef(Claims.NAMESPACE, uid, name);
    }

    static String devices(PreparedClaim c) {
        String devices = c.devices().stream().map(d -> d.device() + " " + d.request() + " " + d.vfioPaths()).toList().toString();
        if (!c.forExtendedResources()) return devices;
        return devices + " env " + c.extended().stream().map(r -> r.request() + " " + r.env() + " " + r.deviceNodes()).toList();
    }
}
