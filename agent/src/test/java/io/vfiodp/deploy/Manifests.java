package io.vfiodp.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** One kustomization as one kubectl rendered it, loaded into fabric8's typed objects. */
record Manifests(Kubectl kubectl, String kustomization, List<HasMetadata> objects) {

    private static final Map<String, List<Manifests>> RENDERED = new ConcurrentHashMap<>();

    /**
     * {@code deploy/<kustomization>} rendered by every kubectl at hand that can (rendered once per test run): one that
     * uses kustomize components only by those that render them, as {@link MonitoringManifestsTest} requires of at
     * least one.
     */
    static List<Manifests> of(String kustomization) {
        return RENDERED.computeIfAbsent(kustomization, k -> {
            List<Kubectl> able = usesComponents(k) ? MonitoringComponent.kubectls() : Kubectl.all();
            return able.stream().map(kubectl -> new Manifests(kubectl, k, kubectl.objects(k))).toList();
        });
    }

    private static boolean usesComponents(String kustomization) {
        try {
            return Files.readAllLines(Checkout.path("deploy", kustomization, "kustomization.yaml")).stream()
                    .anyMatch(line -> line.startsWith("components:"));
        } catch (IOException e) {
            throw new UncheckedIOException("deploy/" + kustomization + "/kustomization.yaml", e);
        }
    }

    @Override
    public String toString() {
        return kustomization + " by " + kubectl;
    }

    /** {@code Kind namespace/name} of every object, in rendering order (namespace {@code -} when cluster-scoped). */
    List<String> kindsAndNames() {
        return objects.stream().map(o -> o.getKind() + " " + Objects.requireNonNullElse(o.getMetadata().getNamespace(), "-")
                + "/" + o.getMetadata().getName()).toList();
    }

    <T extends HasMetadata> T one(Class<T> type, String name) {
        List<T> found = objects.stream().filter(type::isInstance).map(type::cast).filter(o -> o.getMetadata().getName().equals(name)).toList();
        if (found.size() != 1) throw new AssertionError(this + ": expected one " + type.getSimpleName() + " " + name + ", found " + found.size());
        return found.getFirst();
    }

    DaemonSet daemonSet() {
        return one(DaemonSet.class, "vfio-device-plugin");
    }

    Container container() {
        List<Container> containers = daemonSet().getSpec().getTemplate().getSpec().getContainers();
        if (containers.size() != 1) throw new AssertionError(this + ": expected one container, found " + containers.size());
        return containers.getFirst();
    }

    Volume volume(String name) {
        return daemonSet().getSpec().getTemplate().getSpec().getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(this + ": no volume " + name));
    }
}
