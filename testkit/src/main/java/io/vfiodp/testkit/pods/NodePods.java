package io.vfiodp.testkit.pods;

import io.grpc.StatusRuntimeException;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.podresources.v1.ClaimResource;
import io.vfiodp.proto.podresources.v1.ContainerDevices;
import io.vfiodp.proto.podresources.v1.ContainerResources;
import io.vfiodp.proto.podresources.v1.DynamicResource;
import io.vfiodp.proto.podresources.v1.ListPodResourcesResponse;
import io.vfiodp.proto.podresources.v1.PodResources;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.NodeResource;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pods running on a simulated node and the devices they hold, as the kubelet keeps them: those
 * a device plugin allocated (the kubelet picks them among the allocatable devices no pod holds,
 * then calls Allocate, whose answer commits them) and those DRA prepared for the pod's claims. A
 * pod holds its devices until it ends, whatever happens to the plugins, the driver or the kubelet
 * meanwhile. {@link #list()} is what the kubelet's PodResources {@code List} answers
 * ({@link PodResourcesServer}). Each pod has one container, {@value #CONTAINER}.
 */
public final class NodePods {

    public static final String CONTAINER = "compute";

    /** A pod's devices: by resource, those a device plugin allocated; by claim, those DRA prepared. */
    private record Held(String namespace, String name, Map<String, List<String>> byResource, List<PreparedClaim> claims) {}

    /** A claim DRA prepared for a pod: its devices as {@code driver} named them in their pools. */
    public record PreparedClaim(Claim claim, String driver, List<Device> devices) {}

    /** What admitting a pod came to. */
    public sealed interface Admission {
        /** The pod runs and holds {@code devices}. */
        record Admitted(List<String> devices, AllocateResponse response) implements Admission {}

        /** It does not run: too few devices allocatable, or the plugin refused. */
        record Refused(String reason) implements Admission {}
    }

    private final Map<String, Held> pods = new LinkedHashMap<>();

    /**
     * Admits pod {@code namespace/name} asking {@code count} devices of {@code resource}, as the
     * kubelet's device manager does: the first {@code count} allocatable devices no pod holds,
     * then the plugin's Allocate.
     */
    public Admission admit(KubeletSimulator kubelet, String namespace, String name, String resource, int count) {
        List<String> chosen;
        synchronized (this) {
            if (pods.containsKey(key(namespace, name))) throw new IllegalArgumentException("pod " + key(namespace, name) + " runs already");
            Optional<NodeResource> r = kubelet.resource(resource);
            Set<String> free = new TreeSet<>(r.map(NodeResource::healthy).orElse(Set.of()));
            free.removeAll(pluginHeld());
            if (free.size() < count) {
                return new Admission.Refused("Insufficient " + resource + ": " + free.size() + " allocatable, " + count + " asked");
            }
            chosen = List.copyOf(free).subList(0, count);
        }
        AllocateResponse response;
        try {
            response = kubelet.allocate(resource, List.of(chosen));
        } catch (StatusRuntimeException e) {
            return new Admission.Refused("Allocate " + resource + " " + chosen + ": " + e.getStatus());
        }
        synchronized (this) {
            pods.put(key(namespace, name), new Held(namespace, name, Map.of(resource, chosen), List.of()));
        }
        return new Admission.Admitted(chosen, response);
    }

    /**
     * Runs pod {@code namespace/name} with {@code claims}, which the scheduler allocated: the
     * kubelet prepares them through the registered driver. When one fails, the pod does not run
     * and the claims prepared for it are unprepared again.
     *
     * @return the errors by claim UID; empty when the pod runs
     */
    public Map<String, String> run(DraKubeletSimulator kubelet, String namespace, String name, Claim... claims) {
        synchronized (this) {
            if (pods.containsKey(key(namespace, name))) throw new IllegalArgumentException("pod " + key(namespace, name) + " runs already");
        }
        NodePrepareResourcesResponse answer = kubelet.prepare(claims);
        Map<String, String> errors = new LinkedHashMap<>();
        List<PreparedClaim> prepared = new ArrayList<>();
        String driver = kubelet.plugin().info().getName();
        for (Claim c : claims) {
            NodePrepareResourceResponse r = answer.getClaimsOrDefault(c.getUid(), NodePrepareResourceResponse.getDefaultInstance());
            if (!r.getError().isEmpty()) errors.put(c.getUid(), r.getError());
            else prepared.add(new PreparedClaim(c, driver, r.getDevicesList()));
        }
        if (!errors.isEmpty()) {
            if (!prepared.isEmpty()) kubelet.unprepare(prepared.stream().map(PreparedClaim::claim).toArray(Claim[]::new));
            return errors;
        }
        synchronized (this) {
            pods.put(key(namespace, name), new Held(namespace, name, Map.of(), prepared));
        }
        return errors;
    }

    /**
     * Pod {@code namespace/name} ended: the device manager frees its devices, and its claims are
     * unprepared through {@code dra} (the kubelet asks the driver that prepared them).
     *
     * @return the unprepare errors by claim UID; empty when there were none (or no claims)
     */
    public Map<String, String> end(String namespace, String name, Optional<DraKubeletSimulator> dra) {
        Held held;
        synchronized (this) {
            held = pods.get(key(namespace, name));
            if (held == null) throw new IllegalArgumentException("pod " + key(namespace, name) + " does not run");
        }
        Map<String, String> errors = new LinkedHashMap<>();
        if (!held.claims().isEmpty()) {
            DraKubeletSimulator kubelet = dra.orElseThrow(() -> new IllegalArgumentException("pod " + key(namespace, name) + " has claims"));
            kubelet.unprepare(held.claims().stream().map(PreparedClaim::claim).toArray(Claim[]::new)).getClaimsMap()
                    .forEach((uid, r) -> {
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
        pods.values().forEach(p -> p.byResource().values().forEach(out::addAll));
        return out;
    }

    /** The devices pods hold through DRA, {@code <driver>/<pool>/<device>}. */
    public synchronized Set<String> claimHeld() {
        Set<String> out = new TreeSet<>();
        pods.values().forEach(p -> p.claims().forEach(c -> c.devices().forEach(d -> out.add(c.driver() + "/" + d.getPoolName() + "/"
                + d.getDeviceName()))));
        return out;
    }

    /** What the kubelet's PodResources {@code List} answers now. */
    public synchronized ListPodResourcesResponse list() {
        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
        for (Held p : pods.values()) {
            ContainerResources.Builder c = ContainerResources.newBuilder().setName(CONTAINER);
            p.byResource().forEach((resource, ids) -> c.addDevices(ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(ids)));
            for (PreparedClaim claim : p.claims()) {
                DynamicResource.Builder d = DynamicResource.newBuilder().setClaimName(claim.claim().getName())
                        .setClaimNamespace(claim.claim().getNamespace());
                for (Device device : claim.devices()) {
                    ClaimResource.Builder r = ClaimResource.newBuilder().setDriverName(claim.driver()).setPoolName(device.getPoolName())
                            .setDeviceName(device.getDeviceName());
                    device.getCdiDeviceIdsList().forEach(id -> r.addCdiDevices(io.vfiodp.proto.podresources.v1.CDIDevice.newBuilder().setName(id)));
                    d.addClaimResources(r);
                }
                c.addDynamicResources(d);
            }
            b.addPodResources(PodResources.newBuilder().setNamespace(p.namespace()).setName(p.name()).addContainers(c));
        }
        return b.build();
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
