package io.vfiodp.deploy;

import java.util.Optional;
import io.fabric8.mockwebserver.http.HttpUrl;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * One request to the API server as RBAC sees it: verb, API group, resource, namespace and name,
 * derived the way the API server's request-info does it. A list or watch with the field selector
 * {@code metadata.name=N} counts as naming N.
 */
record ApiCall(String verb, String group, String resource, Optional<String> namespace, Optional<String> name) {

    /** Empty for a non-resource path (discovery such as {@code /api}, {@code /version}). */
    static Optional<ApiCall> of(RecordedRequest request) {
        HttpUrl url = HttpUrl.parse("http://api" + request.getPath());
        java.util.List<String> segments = java.util.Arrays.stream(url.encodedPath().split("/")).filter(p -> !p.isEmpty()).toList();
        int i;
        String group;
        if (segments.size() >= 3 && segments.get(0).equals("api")) {
            group = "";
            i = 2;
        } else if (segments.size() >= 4 && segments.get(0).equals("apis")) {
            group = segments.get(1);
            i = 3;
        } else {
            return Optional.empty();
        }
        Optional<String> namespace = Optional.empty();
        if (segments.size() > i + 2 && segments.get(i).equals("namespaces")) {
            namespace = Optional.of(segments.get(i + 1));
            i += 2;
        }
        // a subresource (resourceclaims/status) is a resource of its own to RBAC
        String resource = segments.size() > i + 2 ? segments.get(i) + "/" + segments.get(i + 2) : segments.get(i);
        Optional<String> name = segments.size() > i + 1 ? Optional.of(segments.get(i + 1)) : Optional.empty();
        String fieldSelector = url.queryParameter("fieldSelector");
        if (name.isEmpty() && fieldSelector != null && fieldSelector.startsWith("metadata.name=") && !fieldSelector.contains(",")) {
            name = Optional.of(fieldSelector.substring("metadata.name=".length()));
        }
        boolean collection = segments.size() == i + 1;
        String verb = switch (request.getMethod()) {
            case "GET" -> "true".equals(url.queryParameter("watch")) ? "watch" : collection ? "list" : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> collection ? "deletecollection" : "delete";
            default -> throw new IllegalArgumentException("unexpected method " + request.getMethod() + " " + url);
        };
        return Optional.of(new ApiCall(verb, group, resource, namespace, name));
    }

    /** {@code verb group/resource in <namespace or "all namespaces">}, the form grants are written in too. */
    String grantNeeded() {
        return verb + " " + group + "/" + resource + " in " + namespace.orElse("all namespaces");
    }
}
