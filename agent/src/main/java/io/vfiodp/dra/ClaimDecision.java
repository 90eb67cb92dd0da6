package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimAllocations;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.claims.PreparedClaim;
import io.vfiodp.dra.claims.PreparedDevice;
import io.vfiodp.dra.claims.RequestEdits;
import io.vfiodp.dra.model.DraDevice;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.node.VfioPaths;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a claim not prepared yet can be, and with which devices: what the API allocated must
 * pass {@link ClaimAllocations} against the devices offered now, and no device may be held by another
 * prepared claim. For the scheduler's claim of a pod's extended resources, also what each
 * request's container gets, worked out as Allocate works it out. Pure: the files are written
 * afterwards, by the loop.
 */
record ClaimDecision(String driver, String pool, DriverView view) {

    /**
     * The claim to prepare ({@link PrepareAnswer.Prepared}, not prepared yet) or why not.
     *
     * @param prepared the claims prepared now, by UID, this call's earlier ones included
     */
    PrepareAnswer prepare(ClaimRequest r, Map<String, PreparedClaim> prepared) {
        if (r.fetched().isEmpty()) return new PrepareAnswer.Failed("claim " + r.describe() + " was unprepared while being prepared; ask again");
        ClaimAllocations.Outcome outcome = switch (r.fetched().get()) {
            case ClaimSource.Failed f -> new ClaimAllocations.Refused(f.reason());
            case ClaimSource.Found f -> ClaimAllocations.check(f.claim(), r.uid(), driver, pool, view);
        };
        if (outcome instanceof ClaimAllocations.Refused(String reason)) return new PrepareAnswer.Failed(reason);
        ClaimAllocations.AllocatedClaim allocated = ((ClaimAllocations.Accepted) outcome).claim();
        List<PreparedDevice> devices = new ArrayList<>();
        Map<String, List<DraDevice>> byRequest = new LinkedHashMap<>();
        for (ClaimAllocations.Allocated a : allocated.devices()) {
            Optional<PreparedClaim> holder = holderOf(a.device().name(), prepared);
            if (holder.isPresent()) {
                return new PrepareAnswer.Failed("ResourceClaim " + allocated.namespace() + "/" + allocated.name() + ": device " + a.device().name()
                        + " (" + a.device().device().id() + ") is already prepared for claim " + holder.get().describe());
            }
            PreparedDevice device = new PreparedDevice(a.request(), pool, a.device().name(), a.device().device().id(),
                    VfioPaths.of(List.of(a.device().device()), view.devNodes()), a.device().attributes());
            devices.add(device);
            byRequest.computeIfAbsent(device.baseRequest(), k -> new ArrayList<>()).add(a.device());
        }
        List<RequestEdits> extended = allocated.extendedResources() ? extended(byRequest) : List.of();
        return new PrepareAnswer.Prepared(new PreparedClaim(r.uid(), allocated.namespace(), allocated.name(), allocated.podClaimName(), devices,
                extended));
    }

    /**
     * Per request, what Allocate would give a container for the same devices: each resource's
     * variables (a request of one of the DeviceClasses with an extended resource name holds one
     * resource; one of a class by kind may hold several, each with a variable of its own) and the
     * VFIO nodes of all its devices.
     */
    private List<RequestEdits> extended(Map<String, List<DraDevice>> byRequest) {
        List<RequestEdits> out = new ArrayList<>();
        byRequest.forEach((request, draDevices) -> {
            Map<ResourceName, List<ExposedDevice>> byResource = new LinkedHashMap<>();
            List<ExposedDevice> all = new ArrayList<>();
            for (DraDevice d : draDevices) {
                byResource.computeIfAbsent(d.resource(), k -> new ArrayList<>()).add(d.device());
                all.add(d.device());
            }
            Map<String, String> env = new LinkedHashMap<>();
            byResource.forEach((resource, exposed) -> env.putAll(KubeVirtEnv.containerEnv(resource, exposed.getFirst().kind(), exposed)));
            out.add(new RequestEdits(request, env, VfioPaths.of(all, view.devNodes())));
        });
        return out;
    }

    private static Optional<PreparedClaim> holderOf(String device, Map<String, PreparedClaim> prepared) {
        return prepared.values().stream().filter(c -> c.devices().stream().anyMatch(d -> d.device().equals(device))).findFirst();
    }
}
