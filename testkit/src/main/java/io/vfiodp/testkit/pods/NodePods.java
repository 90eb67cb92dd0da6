package io.vfiodp.testkit.pods;

import io.grpc.StatusRuntimeException;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.NodeResource;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pods running on a simulated node and what their containers hold, as the kubelet keeps it:
 * devices a device plugin allocated (picked among the allocatable ones no pod holds, committed by
 * the plugin's answer to an Allocate per container) and those DRA prepared for the pod's claims (a
 * shared claim prepared once and unprepared with its last pod; the scheduler's extended-resource
 * claim too), held until the pod ends whatever happens meanwhile. {@link #list()} is what the
 * kubelet's PodResources {@code List} answers ({@link PodResourcesServer}).
 */
public final class NodePods {

    /** The container of a pod that names none: virt-launcher's. */
    public static final String CONTAINER = "compute";

    /** What one container holds: devices by resource (device plugins), and claims (DRA; all of a claim's devices, as the kubelet lists them). */
    private record Held(String name, Map<String, List<String>> byResource, List<PreparedClaim> claims) {
        /** Containers of one name merged: a container that asks two resources is listed once, with both. */
        static List<Held> merged(List<Held> held) {
            Map<String, Map<String, List<String>>> byName = new LinkedHashMap<>();
            for (Held h : held) {
                Map<String, List<String>> resources = byName.computeIfAbsent(h.name(), k -> new LinkedHashMap<>());
                h.byResource().forEach((r, ids) -> resources.computeIfAbsent(r, k -> new ArrayList<>()).addAll(ids));
            }
            List<Held> out = new ArrayList<>();
            byName.forEach((name, resources) -> out.add(new Held(name, java.util.Collections.unmodifiableMap(resources), List.of())));
            return out;
        }
    }

    private record Pod(String namespace, String name, List<Held> containers) {
        Set<String> claimUids() {
            Set<String> out = new HashSet<>();
            containers.forEach(c -> c.claims().forEach(p -> out.add(p.claim().getUid())));
            return out;
        }

        List<PreparedClaim> claims() {
            Map<String, PreparedClaim> out = new LinkedHashMap<>();
            containers.forEach(c -> c.claims().forEach(p -> out.putIfAbsent(p.claim().getUid(), p)));
            return List.copyOf(out.values());
        }
    }

    /** A claim DRA prepared for a pod: its devices as {@code driver} named them in their pools. */
    public record PreparedClaim(Claim claim, String driver, List<Device> devices) {}

    /**
     * A container of a pod and the devices of a resource it asks: {@code count} of them, the first
     * allocatable ones no pod holds; or exactly {@code devices} when the test names them (the devices
     * a GetPreferredAllocation chose: the kit makes no choice of its own there).
     */
    public record ContainerAsk(String name, String resource, int count, List<String> devices) {
        public ContainerAsk {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(resource, "resource");
            devices = List.copyOf(devices);
            if (!devices.isEmpty() && devices.size() != count) throw new IllegalArgumentException("named devices must number count");
        }

        public static ContainerAsk of(String name, String resource, int count) {
            return new ContainerAsk(name, resource, count, List.of());
        }

        public static ContainerAsk named(String name, String resource, List<String> devices) {
            return new ContainerAsk(name, resource, devices.size(), devices);
        }
    }

    /** What admitting a pod came to. */
    public sealed interface Admission {
        /** The pod runs and holds {@code devices}; {@code response}: each container's Allocate answer, in order. */
        record Admitted(List<String> devices, AllocateResponse response) implements Admission {}

        /** It does not run: too few devices allocatable, or the plugin refused. */
        record Refused(String reason) implements Admission {}
    }

    private final Map<String, Pod> pods = new LinkedHashMap<>();

    /** Admits pod {@code namespace/name} whose one container, {@value #CONTAINER}, asks {@code count} of {@code resource}. */
    public Admission admit(KubeletSimulator kubelet, String namespace, String name, String resource, int count) {
        return admit(kubelet, namespace, name, List.of(ContainerAsk.of(CONTAINER, resource, count)));
    }

    /**
     * Admits pod {@code namespace/name} with these containers, one Allocate each, in order, as the
     * kubelet's device manager allocates container by container. When a container cannot get its
     * devices the pod does not run, and what earlier containers got is free again.
     */
    public Admission admit(KubeletSimulator kubelet, String namespace, String name, List<ContainerAsk> containers) {
        synchronized (this) {
            if (pods.containsKey(key(namespace, name))) throw new IllegalArgumentException("pod " + key(namespace, name) + " runs already");
        }
        List<Held> held = new ArrayList<>();
        List<String> all = new ArrayList<>();
        AllocateResponse.Builder responses = AllocateResponse.newBuilder();
        for (ContainerAsk ask : containers) {
            List<String> chosen;
            synchronized (this) {
                Set<String> free = new TreeSet<>(kubelet.resource(ask.resource()).map(NodeResource::healthy).orElse(Set.of()));
                free.removeAll(pluginHeld());
                free.removeAll(all);
                if (ask.devices().isEmpty()) {
                    if (free.size() < ask.count()) {
                        return new Admission.Refused("Insufficient " + ask.resource() + ": " + free.size() + " allocatable, " + ask.count()
                                + " asked");
                    }
                    chosen = List.copyOf(free).subList(0, ask.count());
                } else {
                    if (!free.containsAll(ask.devices())) {
                        return new Admission.Refused(ask.resource() + " " + ask.devices() + ": not all allocatable and free (free: " + free + ")");
                    }
                    chosen = ask.devices();
                }
            }
            AllocateResponse response;
            try {
                response = kubelet.allocate(ask.resource(), List.of(chosen));
            } catch (StatusRuntimeException e) {
                return new Admission.Refused("Allocate " + ask.resource() + " " + chosen + ": " + e.getStatus());
            }
            responses.addAllContainerResponses(response.getContainerResponsesList());
            all.addAll(chosen);
            held.add(new Held(ask.name(), Map.of(ask.resource(), chosen), List.of()));
        }
        synchronized (this) {
            pods.put(key(namespace, name), new Pod(namespace, name, Held.merged(held)));
        }
        return new Admission.Admitted(all, responses.build());
    }

    /**
     * Runs pod {@code namespace/name} with {@code claims}, which the scheduler allocated, all used
     * by its one container {@value #CONTAINER}: the kubelet prepares those not prepared yet through
     * the registered driver (a claim another running pod holds is prepared already, and shared).
     * When one fails, the pod does not run and the claims prepared for it are unprepared again.
     *
     * @return the errors by claim UID; empty when the pod runs
     */
    public Map<String, String> run(DraKubeletSimulator kubelet, String namespace, String name, Claim... claims) {
        Map<String, String> errors = new LinkedHashMap<>();
        List<PreparedClaim> prepared = prepare(kubelet, namespace, name, errors, claims);
        if (errors.isEmpty()) {
            synchronized (this) {
                pods.put(key(namespace, name), new Pod(namespace, name, List.of(new Held(CONTAINER, Map.of(), prepared))));
            }
        }
        return errors;
    }

    /**
     * Runs {@code pod}, whose extended resources the scheduler backed by DRA with {@code claim} (UID
     * {@code uid}, as the API server gave it): the kubelet prepares the claim through the driver, and
     * every container the claim's request mappings name holds it, each listed with all of the claim's
     * devices as the kubelet's PodResources lists them ({@code GetContainerClaimInfos}).
     *
     * @return the CDI devices each container gets ({@link DraKubeletSimulator#cdiDevices}); empty when the driver refused, with
     *         the error in {@code errors} by claim UID
     */
    public Map<String, List<String>> runExtended(DraKubeletSimulator kubelet, ExtendedResourcePod pod, ExtendedResourceClaim claim, String uid,
                                                 Map<String, String> errors) {
        Claim c = DraKubeletSimulator.claim(claim.namespace(), claim.name(), uid);
        List<PreparedClaim> prepared = prepare(kubelet, pod.namespace(), pod.name(), errors, c);
        if (!errors.isEmpty()) return Map.of();
        NodePrepareResourceResponse devices = NodePrepareResourceResponse.newBuilder().addAllDevices(prepared.getFirst().devices()).build();
        Map<String, List<String>> cdi = new LinkedHashMap<>();
        List<Held> held = new ArrayList<>();
        for (ExtendedResourcePod.Container container : pod.containers()) {
            boolean mapped = claim.mappings().stream().anyMatch(m -> m.containerName().equals(container.name()));
            held.add(new Held(container.name(), Map.of(), mapped ? prepared : List.of()));
            if (mapped) cdi.put(container.name(), DraKubeletSimulator.cdiDevices(devices, claim, container));
        }
        synchronized (this) {
            pods.put(key(pod.namespace(), pod.name()), new Pod(pod.namespace(), pod.name(), held));
        }
        return cdi;
    }

    /** Prepares what is not prepared for another pod yet; errors go into {@code errors}, and then nothing stays prepared for this pod. */
    private List<PreparedClaim> prepare(DraKubeletSimulator kubelet, String namespace, String name, Map<String, String> errors, Claim... claims) {
        Map<String, PreparedClaim> shared = new LinkedHashMap<>();
        synchronized (this) {
            if (pods.containsKey(key(namespace, name))) throw new IllegalArgumentException("pod " + key(namespace, name) + " runs already");
            for (Pod p : pods.values()) for (PreparedClaim c : p.claims()) shared.put(c.claim().getUid(), c);
        }
        List<Claim> toPrepare = new ArrayList<>();
        for (Claim c : claims) if (!shared.containsKey(c.getUid())) toPrepare.add(c);
        Map<String, PreparedClaim> preparedNow = new LinkedHashMap<>();
        if (!toPrepare.isEmpty()) {
            NodePrepareResourcesResponse answer = kubelet.prepare(toPrepare.toArray(Claim[]::new));
            String driver = kubelet.plugin().info().getName();
            for (Claim c : toPrepare) {
                NodePrepareResourceResponse r = answer.getClaimsOrDefault(c.getUid(), NodePrepareResourceResponse.getDefaultInstance());
                if (!r.getError().isEmpty()) errors.put(c.getUid(), r.getError());
                else preparedNow.put(c.getUid(), new PreparedClaim(c, driver, r.getDevicesList()));
            }
        }
        if (!errors.isEmpty()) {
            if (!preparedNow.isEmpty()) kubelet.unprepare(preparedNow.values().stream().map(PreparedClaim::claim).toArray(Claim[]::new));
            return List.of();
        }
        List<PreparedClaim> out = new ArrayList<>();
        for (Claim c : claims) out.add(shared.containsKey(c.getUid()) ? shared.get(c.getUid()) : preparedNow.get(c.getUid()));
        return out;
    }

    /**
     * Pod {@code namespace/name} ended: the device manager frees its devices, and its claims that no
     * other running pod holds are unprepared through {@code dra} (the kubelet asks the driver that prepared them).
     *
     * @return the unprepare errors by claim UID; empty when there were none (or no claims)
     */
    public Map<String, String> end(String namespace, String name, Optional<DraKubeletSimulator> dra) {
        Pod pod;
        Set<String> stillHeld = new HashSet<>();
        synchronized (this) {
            pod = pods.get(key(namespace, name));
            if (pod == null) throw new IllegalArgumentException("pod " + key(namespace, name) + " does not run");
            for (Pod other : pods.values()) if (other != pod) stillHeld.addAll(other.claimUids());
        }
        Map<String, String> errors = new LinkedHashMap<>();
        List<Claim> last = pod.claims().stream().map(PreparedClaim::claim).filter(c -> !stillHeld.contains(c.getUid())).toList();
        if (!last.isEmpty()) {
            DraKubeletSimulator kubelet = dra.orElseThrow(() -> new IllegalArgumentException("pod " + key(namespace, name) + " has claims"));
            kubelet.unprepare(last.toArray(Claim[]::new)).getClaimsMap().forEach((uid, r) -> {
                if (!r.getError().isEmpty()) errors.put(uid, r.getError());
            });
        }
        // as the kubelet, which unprepares again until the driver says done, the pod is gone only then
        if (errors.isEmpty()) {
            synchronized (this) {
                pods.remove(key(namespace, name));
            }
        }
        return errors;
    }

    /** The pods running, {@code namespace/name}. */
    public synchronized List<String> running() {
        return List.copyOf(pods.keySet());
    }

    /** The device IDs pods hold through device plugins, any resource. */
    public synchronized Set<String> pluginHeld() {
        Set<String> out = new TreeSet<>();
        pods.values().forEach(p -> p.containers().forEach(c -> c.byResource().values().forEach(out::addAll)));
        return out;
    }

    /** The devices pods hold through DRA, {@code <driver>/<pool>/<device>}. */
    public synchronized Set<String> claimHeld() {
        Set<String> out = new TreeSet<>();
        pods.values().forEach(p -> p.claims().forEach(c -> c.devices().forEach(d -> out.add(c.driver() + "/" + d.getPoolName() + "/"
                + d.getDeviceName()))));
        return out;
    }

    /** What the kubelet's PodResources {@code List} answers now: each container with what it holds. */
    public synchronized ListPodResourcesResponse list() {
        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
        for (Pod p : pods.values()) {
            PodResources.Builder pod = PodResources.newBuilder().setNamespace(p.namespace()).setName(p.name());
            for (Held h : p.containers()) pod.addContainers(PodResourcesListing.container(h.name(), h.byResource(), h.claims()));
            b.addPodResources(pod);
        }
        return b.build();
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
