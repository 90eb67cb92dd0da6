package io.vfiodp.dra.classes;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.vfiodp.dra.model.JsonTree;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Compares a DeviceClass the API holds, a JSON tree, with the one a resource needs. Pure. */
public final class DeviceClassComparison {

    private DeviceClassComparison() {}

    /** @param found the class of {@code expected}'s name as the API holds it; empty when there is none */
    public static ClassVerdict verdict(ExtendedResourceClass expected, Optional<GenericKubernetesResource> found) {
        if (found.isEmpty()) return new ClassVerdict.Missing(expected.name());
        var tree = found.get().getAdditionalProperties();
        String extended = JsonTree.text(tree, "spec", "extendedResourceName");
        if (!expected.resource().value().equals(extended)) {
            return new ClassVerdict.Differs(expected.name(), extended == null ? "has no spec.extendedResourceName, not " + expected.resource().value()
                    : "has spec.extendedResourceName " + extended + ", not " + expected.resource().value());
        }
        List<String> selectors = JsonTree.list(tree, "spec", "selectors").stream()
                .map(s -> Objects.toString(JsonTree.text(s, "cel", "expression"), "")).toList();
        if (!selectors.equals(List.of(expected.selector()))) {
            return new ClassVerdict.Differs(expected.name(), "selects " + selectors + ", not [" + expected.selector() + "]");
        }
        return new ClassVerdict.Ready(expected.name());
    }
}
