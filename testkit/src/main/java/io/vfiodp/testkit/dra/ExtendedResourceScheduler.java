package io.vfiodp.testkit.dra;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The scheduler's part of extended resources backed by DRA (KEP-5004), as kube-scheduler's
 * {@code dynamicresources} plugin plays it ({@code extendeddynamicresources.go}) for a pod that
 * lands on a node which offers the resources through DRA only: one special ResourceClaim for the
 * pod, named from {@code <pod>-extended-resources-}, annotated
 * {@code resource.kubernetes.io/extended-resource-claim: "true"} and owned by the pod; per
 * container and resource backed by a DeviceClass, one request {@code container-<i>-request-<j>}
 * ({@code i} the container's index, {@code j} the resource's place among all the container's
 * requests sorted by name) of that class for the container's count; the requests sorted by name;
 * the mappings per resource in sorted order, container by container. The devices are taken, for
 * each request in order, from the front of the candidates given for its resource that no earlier
 * request took: the kit evaluates no CEL, the test says which devices the class selects.
 */
public final class ExtendedResourceScheduler {

    /** {@code resourceapi.ExtendedResourceClaimAnnotation}. */
    public static final String ANNOTATION = "resource.kubernetes.io/extended-resource-claim";
    /** The letters of the API server's generated name suffixes ({@code k8s.io/apimachinery/pkg/util/rand}). */
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

    private ExtendedResourceScheduler() {}

    /** A device of a pool, as an allocation result names it. */
    public record Candidate(String driver, String pool, String device) {}

    /**
     * The special claim, allocated, and the pod's request mappings.
     *
     * @param classes    extended resource name → the DeviceClass whose {@code spec.extendedResourceName} it is
     * @param candidates extended resource name → the devices that class selects on the node, in the order to take them
     * @throws IllegalStateException when a request cannot be satisfied from the candidates, naming it
     */
    public static ExtendedResourceClaim schedule(ExtendedResourcePod pod, Map<String, String> classes, Map<String, List<Candidate>> candidates) {
        List<ExtendedResourceClaim.Request> requests = new ArrayList<>();
        List<ExtendedResourceClaim.Mapping> mappings = new ArrayList<>();
        for (String resource : new TreeSet<>(classes.keySet())) {
            for (int i = 0; i < pod.containers().size(); i++) {
                ExtendedResourcePod.Container c = pod.containers().get(i);
                Long count = c.requests().get(resource);
                if (count == null || count == 0) continue;
                int index = new ArrayList<>(c.requests().keySet()).indexOf(resource);
                String name = "container-" + i + "-request-" + index;
                requests.add(new ExtendedResourceClaim.Request(name, resource, classes.get(resource), count));
                mappings.add(new ExtendedResourceClaim.Mapping(c.name(), resource, name));
            }
        }
        if (requests.isEmpty()) throw new IllegalStateException("pod " + pod.name() + " asks for no extended resource backed by a DeviceClass");
        requests.sort((a, b) -> a.name().compareTo(b.name()));
        Set<Candidate> taken = new HashSet<>();
        List<ExtendedResourceClaim.Result> results = new ArrayList<>();
        for (ExtendedResourceClaim.Request r : requests) {
            List<Candidate> free = candidates.getOrDefault(r.resource(), List.of()).stream().filter(d -> !taken.contains(d)).toList();
            if (free.size() < r.count()) {
                throw new IllegalStateException("request " + r.name() + " asks " + r.count() + " of " + r.resource() + ", " + free.size()
                        + " candidate device(s) left");
            }
            for (Candidate d : free.subList(0, (int) r.count())) {
                taken.add(d);
                results.add(new ExtendedResourceClaim.Result(r.name(), d.driver(), d.pool(), d.device()));
            }
        }
        return new ExtendedResourceClaim(pod.namespace(), claimName(pod), pod.name(), pod.uid(), requests, results, mappings);
    }

    /**
     * The name the API server generates from {@code <pod>-extended-resources-}: the base cut to 58
     * characters and five letters added; here the letters come from the pod's UID, so that a test
     * sees the same name every time.
     */
    static String claimName(ExtendedResourcePod pod) {
        String base = pod.name() + "-extended-resources-";
        if (base.length() > 58) base = base.substring(0, 58);
        StringBuilder suffix = new StringBuilder();
        int h = pod.uid().toLowerCase(Locale.ROOT).hashCode();
        for (int i = 0; i < 5; i++) {
            suffix.append(ALPHANUMS.charAt(Math.floorMod(h, ALPHANUMS.length())));
            h /= ALPHANUMS.length();
        }
        return base + suffix;
    }
}
