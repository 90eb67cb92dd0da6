package io.vfiodp.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * charts/vfio-device-plugin through Helm's own code (helm-java carries Helm's Go library): lint, and template as
 * {@code helm template vfio-device-plugin charts/vfio-device-plugin -n vfio-device-plugin -f values.yaml} does, the
 * release and namespace of the kustomize manifests, so that names compare one to one.
 */
final class HelmChart {

    static final Path CHART = Checkout.path("charts", "vfio-device-plugin");
    static final String RELEASE = "vfio-device-plugin";
    static final String NAMESPACE = "vfio-device-plugin";

    /**
     * The labels a Helm release adds to kustomize's (to objects, and to selectors: two releases select their own pods),
     * left out when the two are compared.
     */
    static final Set<String> RELEASE_LABELS = Set.of("helm.sh/chart", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by",
            "app.kubernetes.io/version");

    private HelmChart() {}

    static LintResult lint() {
        return new Helm(CHART).lint().strict().call();
    }

    /** The chart rendered with these values (YAML's shape, as a values file holds them). */
    static String template(Map<String, ?> values) {
        try {
            Path file = Files.createTempFile("values-", ".yaml");
            try {
                Files.writeString(file, Serialization.asYaml(values));
                return new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE).withValuesFile(file).call();
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<HasMetadata> objects(Map<String, ?> values) {
        return Kubectl.load(template(values));
    }

    /** {@code Kind namespace/name}, as {@link Manifests#kindsAndNames()} writes it. */
    static String key(HasMetadata o) {
        return o.getKind() + " " + Objects.requireNonNullElse(o.getMetadata().getNamespace(), "-") + "/" + o.getMetadata().getName();
    }

    /**
     * An object as a tree of maps and lists, with the release's labels left out of every label map and selector, and
     * a DaemonSet's volumes and mounts sorted (kustomize versions merge a patch's entries in at different places).
     */
    static Map<String, Object> comparable(HasMetadata o) {
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = Serialization.unmarshal(Serialization.asJson(o), LinkedHashMap.class);
        return strip(tree);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> strip(Map<String, Object> map) {
        Map<String, Object> out = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            if ((k.equals("labels") || k.equals("matchLabels")) && v instanceof Map<?, ?> labels) {
                Map<String, Object> kept = new LinkedHashMap<>((Map<String, Object>) labels);
                kept.keySet().removeAll(RELEASE_LABELS);
                out.put(k, kept);
            } else if (v instanceof Map<?, ?> m) {
                out.put(k, strip((Map<String, Object>) m));
            } else if (v instanceof List<?> list) {
                List<Object> items = new ArrayList<>(list.stream().map(i -> i instanceof Map<?, ?> m ? strip((Map<String, Object>) m) : i).toList());
                if (k.equals("volumes")) items.sort(Comparator.comparing(i -> String.valueOf(((Map<?, ?>) i).get("name"))));
                if (k.equals("volumeMounts")) items.sort(Comparator.comparing(i -> String.valueOf(((Map<?, ?>) i).get("mountPath"))));
                out.put(k, items);
            } else {
                out.put(k, v);
            }
        });
        return out;
    }
}
