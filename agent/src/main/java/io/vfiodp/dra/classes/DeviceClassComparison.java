package io.vfiodp.dra.classes;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Compares a DeviceClass the API holds with the one a resource needs. Pure. */
public final class DeviceClassComparison {

    private DeviceClassComparison() {}

    /** @param found the class of {@code expected}'s name as the API holds it; empty when there is none */
    public static ClassVerdict verdict(ExtendedResourceClass expected, Optional<DeviceClass> found) {
        if (found.isEmpty()) return new ClassVerdict.Missing(expected.name());
        var spec = found.get().getSpec();
        String extended = spec == null ? null : spec.getExtendedResourceName();
        if (!expected.resource().value().equals(extended)) {
            return new ClassVerdict.Differs(expected.name(), extended == null ? "has no spec.extendedResourceName, not " + expected.resource().value()
                    : "has spec.extendedResourceName " + extended + ", not " + expected.resource().value());
        }
        List<String> selectors = spec.getSelectors() == null ? List.of() : spec.getSelectors().stream()
                .map(s -> s == null || s.getCel() == null ? "" : Objects.toString(s.getCel().getExpression(), "")).toList();
        if (!selectors.equals(List.of(expected.selector()))) {
            return new ClassVerdict.Differs(expected.name(), "selects " + selectors + ", not [" + expected.selector() + "]");
        }
        return new ClassVerdict.Ready(expected.name());
    }
}
