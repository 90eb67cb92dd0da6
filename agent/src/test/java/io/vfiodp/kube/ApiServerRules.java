package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Optional;

/**
 * What a real API server does that fabric8's CRUD mock does not, as far as this plugin's tests need
 * it. A dry run ({@code ?dryRun=All}) is answered with the object as it would be stored, and
 * stores nothing (the mock would store it). And, when told, the server plays one whose feature gate
 * DRADeviceTaints is off: ResourceSlice writes lose their devices' taints, as its field dropping
 * does, dry runs included. A list or watch of pods with the field selector {@code spec.nodeName=N},
 * which the mock would answer with no pod at all (it matches metadata fields only), is answered with
 * every pod: the plugin filters on the node again, so a test still sees that another node's pods
 * are left out.
 */
final class ApiServerRules {

    private static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";

    private static final java.util.regex.Pattern NODE_NAME_SELECTOR = java.util.regex.Pattern.compile("fieldSelector=spec\\.nodeName(%3D|=)[^&]*&?");

    private volatile boolean dropDeviceTaints;

    void dropDeviceTaints(boolean drop) {
        dropDeviceTaints = drop;
    }

    /** {@code request} as the server takes it in: without device taints, when it drops them. */
    RecordedRequest admitted(RecordedRequest request) {
        if (request.getMethod().equals("GET") && NODE_NAME_SELECTOR.matcher(request.getPath()).find()) {
            String path = NODE_NAME_SELECTOR.matcher(request.getPath()).replaceAll("").replaceAll("[?&]$", "");
            return new RecordedRequest(request.getRequestLine(), request.method(), path, request.getHeaders(), request.getBody());
        }
        if (!dropDeviceTaints || !request.getPath().startsWith(SLICES) || !writes(request)) return request;
        ResourceSlice slice = Serialization.unmarshal(request.getUtf8Body(), ResourceSlice.class);
        if (slice.getSpec() != null && slice.getSpec().getDevices() != null) {
            for (Device d : slice.getSpec().getDevices()) d.setTaints(null);
        }
        return new RecordedRequest(request.getRequestLine(), request.method(), request.getPath(), request.getHeaders(),
                new Buffer(Serialization.asJson(slice).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** The answer to a dry run, which stores nothing; empty for any other request. */
    Optional<MockResponse> dryRun(RecordedRequest request) {
        if (!writes(request) || !request.getPath().contains("dryRun=All")) return Optional.empty();
        return Optional.of(new MockResponse().setResponseCode(request.getMethod().equals("POST") ? 201 : 200).setBody(request.getUtf8Body()));
    }

    private static boolean writes(RecordedRequest r) {
        return r.getMethod().equals("POST") || r.getMethod().equals("PUT");
    }
}
