package io.vfiodp.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * deploy/monitoring, a kustomize Component: only kubectls whose kustomize knows components
 * (kubectl 1.21+, kustomize v4+) render it. Debian's kubectl 1.20 (kustomize v2.0.3) does not;
 * the tests render it with every newer kubectl at hand and fail when there is none.
 */
final class MonitoringComponent {

    private static final Pattern SEMVER_MINOR = Pattern.compile("v1\\.(\\d+)\\.");
    private static final Pattern INFO_MINOR = Pattern.compile("Minor:\"(\\d+)");

    private MonitoringComponent() {}

    static boolean rendersComponents(Kubectl kubectl) {
        for (Pattern p : List.of(SEMVER_MINOR, INFO_MINOR)) {
            Matcher m = p.matcher(kubectl.version());
            if (m.find()) return Integer.parseInt(m.group(1)) >= 21;
        }
        throw new AssertionError("cannot tell the version of " + kubectl);
    }

    /** Every kubectl at hand that renders components; fails when none does. */
    static List<Kubectl> kubectls() {
        List<Kubectl> all = Kubectl.all();
        List<Kubectl> able = all.stream().filter(MonitoringComponent::rendersComponents).toList();
        if (able.isEmpty()) {
            throw new AssertionError("no kubectl renders kustomize components (kubectl 1.21 or newer); found " + all
                    + ": put a newer kubectl on PATH or set KUBECTL to one");
        }
        return able;
    }

    /** The one object of {@code kind} named {@code vfio-device-plugin...} among {@code objects}. */
    static GenericKubernetesResource one(List<HasMetadata> objects, String kind) {
        List<GenericKubernetesResource> found = objects.stream().filter(o -> o.getKind().equals(kind))
                .map(o -> (GenericKubernetesResource) o).toList();
        if (found.size() != 1) throw new AssertionError("expected one " + kind + ", found " + found.size());
        return found.getFirst();
    }

    /** The PrometheusRule's {@code spec}: what Prometheus loads as a rule file. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> ruleFile(List<HasMetadata> objects) {
        return (Map<String, Object>) one(objects, "PrometheusRule").getAdditionalProperties().get("spec");
    }
}
