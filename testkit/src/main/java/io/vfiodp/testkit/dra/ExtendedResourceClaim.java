package io.vfiodp.testkit.dra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * The special ResourceClaim the scheduler writes for a pod's extended resources backed by DRA,
 * allocated, and the pod's {@code status.extendedResourceClaimStatus}: both as the API serves them
 * ({@link #claimJson()}, {@link #podStatusJson()}), for a test to store in its API server.
 *
 * @param requests the claim's requests, sorted by name
 * @param results  the allocation, request by request
 * @param mappings {@code requestMappings}: which request each container's resource got
 */
public record ExtendedResourceClaim(String namespace, String name, String podName, String podUid, List<Request> requests,
                                    List<Result> results, List<Mapping> mappings) {

    public ExtendedResourceClaim {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        requests = List.copyOf(requests);
        results = List.copyOf(results);
        mappings = List.copyOf(mappings);
    }

    /** A request of {@code count} devices of {@code deviceClass}, for {@code resource}. */
    public record Request(String name, String resource, String deviceClass, long count) {}

    public record Result(String request, String driver, String pool, String device) {}

    /** A {@code ContainerExtendedResourceRequest}. */
    public record Mapping(String containerName, String resourceName, String requestName) {}

    /** The results of {@code request}, in order. */
    public List<Result> resultsOf(String request) {
        return results.stream().filter(r -> r.request().equals(request)).toList();
    }

    /** The claim, {@code resource.k8s.io/v1}, with its status; no UID, which the API server gives it. */
    public String claimJson() {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", namespace);
        metadata.put("annotations", Map.of(ExtendedResourceScheduler.ANNOTATION, "true"));
        metadata.put("ownerReferences", List.of(Map.of("apiVersion", "v1", "kind", "Pod", "name", podName, "uid", podUid, "controller", true)));
        List<Object> specRequests = new ArrayList<>();
        for (Request r : requests) {
            specRequests.add(Map.of("name", r.name(), "exactly", Map.of("deviceClassName", r.deviceClass(), "allocationMode", "ExactCount",
                    "count", r.count())));
        }
        List<Object> allocated = new ArrayList<>();
        for (Result r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("request", r.request());
            m.put("driver", r.driver());
            m.put("pool", r.pool());
            m.put("device", r.device());
            allocated.add(m);
        }
        Map<String, Object> claim = new LinkedHashMap<>();
        claim.put("apiVersion", "resource.k8s.io/v1");
        claim.put("kind", "ResourceClaim");
        claim.put("metadata", metadata);
        claim.put("spec", Map.of("devices", Map.of("requests", specRequests)));
        claim.put("status", Map.of("allocation", Map.of("devices", Map.of("results", allocated)),
                "reservedFor", List.of(Map.of("resource", "pods", "name", podName, "uid", podUid))));
        return new JsonMapper().writeValueAsString(claim);
    }

    /** The pod's {@code status} as far as the scheduler sets it here: {@code extendedResourceClaimStatus}. */
    public String podStatusJson() {
        List<Object> list = new ArrayList<>();
        for (Mapping m : mappings) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("containerName", m.containerName());
            e.put("resourceName", m.resourceName());
            e.put("requestName", m.requestName());
            list.add(e);
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("resourceClaimName", name);
        status.put("requestMappings", list);
        return new JsonMapper().writeValueAsString(Map.of("extendedResourceClaimStatus", status));
    }
}
